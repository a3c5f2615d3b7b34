#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tb-count.py: guest instructions executed, from qemu-user's
"-d in_asm,exec,nochain" log on stdin.  in_asm prints each translation
block once (one line per instruction), exec one line per run of a block:
the sum over runs of the block's length is the instruction count.  Prints
the count.  Blocks that end early (a fault, a system call) are counted
whole, which a replay of in-memory stacks does not do in its loop."""
import re
import sys

insns = {}
total = 0
cur = None
n = 0
trace = re.compile(r'^Trace \d+: 0x[0-9a-f]+ \[[0-9a-f]+/([0-9a-f]+)/')
for line in sys.stdin:
    if line.startswith('Trace'):
        m = trace.match(line)
        if m:
            total += insns.get(int(m.group(1), 16), 0)
    elif line.startswith('IN:'):
        cur, n = None, 0
    elif line.startswith('0x'):
        pc = int(line.split(':', 1)[0], 16)
        if cur is None:
            cur = pc
        n += 1
        insns[cur] = n
print(total)
