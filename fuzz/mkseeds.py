#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the seed corpus of fuzz_unwind_v2 into fuzz/corpus/.

Each seed is u16 table length, a valid v2 table, 16 register words and a
stack, in the layout fuzz_unwind_v2.c reads.  Tables come from the test
writer in tests/data/unwind/mkblob.py.
"""
import os
import struct
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "tests", "data", "unwind"))
import mkblob  # noqa: E402

STACK = 0x7EFF0000


def seed(table, regs, stack):
    r = [0] * 16
    r[3] = STACK
    r[13] = STACK
    for k, v in regs.items():
        r[k] = v
    return (struct.pack("<H", len(table)) + table +
            struct.pack("<16I", *r) + stack)


def main():
    out = os.path.join(here, "corpus")
    os.makedirs(out, exist_ok=True)
    a = mkblob.build(mkblob.A_FUNCS, 0x1000)
    b = mkblob.build(mkblob.B_FUNCS, 0x30000)
    ra = lambda off: off | 1  # noqa: E731
    lmtr = mkblob.words({0: 0x44, 4: ra(0x210), 20: 4, 32: STACK + 48,
                         36: ra(0x320), 48: 0x77, 52: ra(0x404)})
    # V8's frames (fuzz_unwind_v2.c's add_jit(): r5 28 puts pc and r11
    # in JIT code after the table's range): two frames, then an entry
    # frame (markers 2, 2 below its fp; r4-r10 at fp + 72) returning to
    # the outermost function of table A
    jit = {8: STACK + 24, 12: 0x20104, 24: STACK + 48, 28: 0x20208,
           40: 2, 44: 2, 48: 0x1111, 52: ra(0x404)}
    jit.update({120 + 4 * i: 0x404 + i for i in range(7)})
    cut = dict(jit)
    cut.update({12: 0x1104, 28: 0x1208})
    seeds = {
        "lmtr": seed(a, {15: 0x104, 2: 16}, lmtr),
        "lmtr-compat": seed(a, {15: 0x104, 2: 16, 1: 1}, lmtr),
        "noreturn": seed(a, {15: 0x700, 14: 0x601, 2: 16},
                         mkblob.words({0: 0x44, 4: ra(0x404)})),
        "fp": seed(a, {15: 0x310, 13: STACK + 40, 7: STACK + 48, 2: 16},
                   lmtr),
        "twopage": seed(b, {15: 0x20010, 2: 16},
                        mkblob.words({12: 0x44, 28: 0x104})),
        "vfp": seed(mkblob.build([(0, [(2, b"\xb1\x0f\xc9\x01\xd1\xb3\x00"
                                        b"\xb8\xa0\x86\x01\xb0"),
                                       (0, b"\xb0")])], 0x100),
                    {15: 0x10, 2: 16},
                    mkblob.words({80: STACK + 96, 84: 0})),
        # a caller whose vsp additions wrap 32 bits (b2, ULEB 0x3fffff7e):
        # the cached walks must stop at bad-sp with the plain one
        "shape-vsp-wraps": seed(
            mkblob.build([(0x000, [(0, mkblob.REFUSE)]),
                          (0x100, [(1, mkblob.A8), (0, mkblob.B0)]),
                          (0x200, [(0, b"\x00\xb2\xfe\xfe\xff\xff\x03"
                                       b"\xa8\xb0")]),
                          (0x400, [(0, mkblob.ROOT)])], 0x1000),
            {15: 0x104, 2: 16},
            mkblob.words({0: 0x44, 4: ra(0x210), 8: 0x55, 12: ra(0x404)})),
        "jit-v8": seed(a, {15: 0x10, 11: 8, 5: 28, 2: 16},
                       mkblob.words(jit)),
        # the same JIT code inside table A's range, at 0x1000 (r5 bit 6,
        # bits 8-15 0x10): the table cut around it
        "jit-v8-cut": seed(a, {15: 0x10, 11: 8, 5: 0x105c, 2: 16},
                           mkblob.words(cut)),
    }
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
