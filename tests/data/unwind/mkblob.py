#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the v2 tables and stack dumps that tests/host/unwind_cli.sh uses.

usage: mkblob.py OUTDIR

A deliberately small writer: functions are given with their opcode
sequences already encoded, and the layout is the packed one of the v2
format (header, page table, function table, FOT, UIT).  The scenario
mirrors the "world" of tests/host/test_unwind_v2.c.
"""
import os
import struct
import sys

PAGE_SHIFT = 17


def uleb(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def build(funcs, text_size):
    """funcs: [(start_byte_off, [(instr_off, seq_bytes), ...])], sorted."""
    uit = bytearray()
    fot = bytearray()
    lists = {}
    entries = []
    for start, rows in funcs:
        key = tuple(rows)
        if key not in lists:
            lst = bytearray()
            for off, seq in rows:
                at = uit.find(seq)
                if at < 0:
                    at = len(uit)
                    uit += seq
                lst += uleb(off) + uleb(at)
            lists[key] = len(fot)
            fot += lst
        entries.append(((start >> 1) & 0xFFFF, lists[key]))
    npages = max(1, (text_size + (1 << PAGE_SHIFT) - 1) >> PAGE_SHIFT)
    pages = []
    fi = 0
    for p in range(npages):
        while fi < len(funcs) and (funcs[fi][0] >> PAGE_SHIFT) < p:
            fi += 1
        pages.append(fi)
    pt = b"".join(struct.pack("<I", x) for x in pages)
    ft = b"".join(struct.pack("<HH", *e) for e in entries)
    off_pt = 32
    off_ft = off_pt + len(pt)
    off_fot = off_ft + len(ft)
    off_uit = off_fot + len(fot)
    hdr = struct.pack("<8I", off_pt, len(pages), off_ft, len(entries),
                      off_fot, len(fot), off_uit, len(uit))
    return hdr + pt + ft + bytes(fot) + bytes(uit)


B0 = b"\xb0"
A8 = b"\xa8\xb0"
AB = b"\xab\xb0"
SUB_AB = b"\x02\xab\xb0"
T2 = b"\x97\x41\x84\x0b\xb0"
T1 = b"\x84\x0b\xb0"
ROOT = b"\xb1\x00"
REFUSE = b"\x80\x00"
SP4 = b"\x00\xb0"

A_FUNCS = [
    (0x000, [(0, REFUSE)]),
    (0x100, [(1, A8), (0, B0)]),               # L: push {r4, lr}
    (0x200, [(2, SUB_AB), (1, AB), (0, B0)]),  # M: push {r4-r7, lr}; sub
    (0x300, [(2, T2), (1, T1), (0, B0)]),      # T: frame pointer r7
    (0x400, [(0, ROOT)]),                      # R: thread entry
    (0x500, [(1, A8), (0, B0)]),               # N: ends in a noreturn call
    (0x600, [(0, REFUSE)]),                    # X: right after N
    (0x700, [(0, B0)]),                        # Z: return to lr
    (0x800, [(0, SP4)]),                       # P: sp += 4 only
    (0xA00, [(0, REFUSE)]),
]
B_FUNCS = [
    (0x000, [(1, A8), (0, B0)]),
    (0x100, [(2, SUB_AB), (1, AB), (0, B0)]),
    (0x20100, [(0, REFUSE)]),
]

A_BASE = 0x10000
B_BASE = 0x40000
STACK = 0x7EFF0000


def words(d):
    """A stack dump of 64 words from a {byte offset: value} map."""
    w = [0] * 64
    for off, val in d.items():
        w[off // 4] = val
    return struct.pack("<64I", *w)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)

    def put(name, data):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)

    put("a.v2", build(A_FUNCS, 0x1000))
    put("b.v2", build(B_FUNCS, 0x30000))
    ra_m, ra_t, ra_r = A_BASE + 0x211, A_BASE + 0x321, A_BASE + 0x405
    # L <- M <- T <- R, sampled in L after its push
    put("lmtr.stack", words({0: 0x44, 4: ra_m, 20: 4, 32: STACK + 48,
                             36: ra_t, 48: 0x77, 52: ra_r}))
    # B's L <- B's M (ARM return) <- A's T <- A's R
    put("cross.stack", words({0: 0x44, 4: B_BASE + 0x110, 32: STACK + 48,
                              36: ra_t, 52: ra_r}))
    # N's frame: r4, then the return address into R
    put("n.stack", words({0: 0x44, 4: ra_r}))
    # a table with a spare opcode (9D) in its only sequence
    bad = bytearray(build([(0, [(0, b"\x9d\xb0")])], 0x100))
    put("spare.v2", bytes(bad))
    put("short.v2", bytes(bad[:20]))


if __name__ == "__main__":
    main()
