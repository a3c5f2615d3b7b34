# SPDX-License-Identifier: GPL-2.0
"""Fold 'perf script' text (stdin) into 'stack count' lines by the rules
stackcollapse-perf.pl applies, for tests/host/report_views.sh: a sample
starts at a header line 'COMM PID/TID ...', each indented line
'ADDRESS FUNCTION (MODULE)' is a frame, leaf first, with any '+0xOFFSET'
dropped from the function, and a blank line ends the sample.  The process
name is the outermost frame, as stackcollapse-perf.pl puts it by default."""
import collections
import re
import sys

head = re.compile(r'^(\S.+?)\s+(\d+)/*(\d+)*\s+')
frame = re.compile(r'^\s*(\w+)\s*(.+) \((\S*)\)$')
stacks = collections.Counter()
comm, frames = None, []


def flush():
    if comm is not None:
        stacks[';'.join([comm] + frames[::-1])] += 1


for line in sys.stdin:
    line = line.rstrip('\n')
    if not line:
        flush()
        comm, frames = None, []
    elif line[0] in ' \t':
        m = frame.match(line)
        if not m:
            sys.exit('bad frame line: %r' % line)
        frames.append(re.sub(r'\+0x[\da-f]+$', '', m.group(2)))
    else:
        m = head.match(line)
        if not m or comm is not None:
            sys.exit('bad header line: %r' % line)
        comm = m.group(1)
flush()
for s, n in sorted(stacks.items()):
    print(s, n)
