#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""lines.py PROFILED_DIR MODULE FUNCTION: where one module function's
instructions went in make bench-profile's profiled boot (PROFILED_DIR,
its blocks.txt and kallsyms.txt), per sample of the run, by source line:
each translated block's instructions are spread over the lines
`objdump -dl` of MODULE (the uwprof.ko the boot loaded) gives its
addresses (ARM kernels: 4 bytes an instruction; not Thumb-2 ones).
Only the profiled boot: the unprofiled one runs no module code.  A block
left early counts whole, as in attribute.py."""
import bisect
import collections
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attribute import kernel_symbols, samples  # noqa: E402


def line_of_offset(module, func):
    """Offset in @func -> "file:line", from the module's disassembly."""
    out = subprocess.run(["arm-linux-gnueabihf-objdump", "-dl",
                          "--no-show-raw-insn", module], check=True,
                         capture_output=True, text=True).stdout
    lines, start, src = {}, None, "?"
    for text in out.splitlines():
        m = re.match(r"^([0-9a-f]+) <(.+)>:$", text)
        if m:
            start = int(m.group(1), 16) if m.group(2) == func else None
            continue
        if start is None:
            continue
        m = re.match(r"^(/\S+):(\d+)", text)
        if m:
            src = "%s:%s" % (os.path.basename(m.group(1)), m.group(2))
            continue
        m = re.match(r"^\s*([0-9a-f]+):\s", text)
        if m:
            lines[int(m.group(1), 16) - start] = src
    if not lines:
        sys.exit("lines.py: no %s in %s" % (func, module))
    return lines


def main():
    prof_dir, module, func = sys.argv[1:4]
    n = samples(prof_dir, "lines.py")
    syms = kernel_symbols(prof_dir + "/kallsyms.txt")
    addrs = [a for a, _ in syms]
    starts = [a for a, name in syms if name.split()[0] == func]
    if not starts:
        sys.exit("lines.py: no %s in %s/kallsyms.txt" % (func, prof_dir))
    lines = line_of_offset(module, func)
    per_line = collections.Counter()
    for text in open(prof_dir + "/blocks.txt"):
        addr, insns, runs = text.split()
        addr, insns, runs = int(addr, 16), int(insns), int(runs)
        i = bisect.bisect_right(addrs, addr) - 1
        if i < 0 or syms[i][1].split()[0] != func:
            continue
        for k in range(insns):
            per_line[lines.get(addr - syms[i][0] + 4 * k, "?")] += runs
    total = sum(per_line.values())
    print("%s: %.1f instructions per sample of %d" % (func, total / n, n))
    for src, count in per_line.most_common():
        if count / n >= 0.5:
            print("  %8.1f  %s" % (count / n, src))


if __name__ == "__main__":
    main()
