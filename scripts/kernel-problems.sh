#!/bin/bash
# usage: kernel-problems.sh CONSOLE-LOG
# Prints (numbered) the lines of a VM's console log that show a kernel
# problem: a BUG, WARNING, Oops, call trace, panic, or the debug kernel's
# UBSAN, ODEBUG and kmemleak reports (these come without "BUG:").
# Exit status 0 if there is one, 1 if not.
#
# Files that vm.sh passes out of the guest travel in the log as base64
# between UWPROF-FILE-BEGIN and UWPROF-FILE-END; their lines are not read
# (base64 can spell "Oops"), but any other line inside such a block is, so
# a kernel message printed in the middle of a file still counts.
#
# After the list, the first report whole (up to its "end trace" line, 60
# lines at most): a WARNING's call trace says which path hit it, and a
# failure seen once in CI may not come back.
set -euo pipefail
found=$(awk '/^UWPROF-FILE-BEGIN /{file=1; next} /^UWPROF-FILE-END/{file=0; next}
	file && /^[A-Za-z0-9+\/=]*$/ {next}
	{print NR ":" $0}' "$1" |
	grep -E 'BUG:|WARNING:|Oops|Unable to handle|Call trace|Kernel panic|UBSAN:|ODEBUG:|suspected memory leak') ||
	exit 1
printf '%s\n' "$found"
first=${found%%:*}
echo "kernel-problems.sh: the first report, from line $first:"
awk -v first="$first" 'NR >= first && NR < first + 60 {
	print; if (/---\[ end trace/) exit }' "$1"
