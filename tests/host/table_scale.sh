#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Table generation scales as n log n: a synthetic ARM32 library of 300,000
# functions (mkelf.py: half with DWARF CFI, EHABI inline/extab/CANTUNWIND
# entries, about 2,000 distinct row lists, a 5,000-stub .plt, a mapping
# symbol per function) must build in at most 8 times the CPU time of one
# a quarter its size, and in 30 s.  The quadratic loops this guards
# against took minutes at that size.  TABLE_SCALE_FUNCS overrides the
# count.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
UWPROF=${UWPROF:-$here/../../build/host/uwprof}
n=${TABLE_SCALE_FUNCS:-300000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# CPU time (user + system), not wall time: the machine may be busy with
# other builds, which stretches wall time but not the work done.
TIMEFORMAT='%3U %3S'
# cpu_ms FUNCS: build a library of FUNCS functions, table it into
# $tmp/FUNCS.*, echo the table's CPU time in ms (rc in $tmp/FUNCS.rc)
cpu_ms() {
	local f=$tmp/$1 user sys
	python3 "$here/mkelf.py" "$f.so" --funcs "$1" --dwarf-every 2 \
		--extab-every 7 --cantunwind-every 11 --varied --plt $(($1 / 60))
	{ time "$UWPROF" table "$f.so" -o "$f.uwt" --stats >"$f.stats"; } \
		2>"$f.time"
	echo $? >"$f.rc"
	read -r user sys <"$f.time"
	awk -v u="$user" -v s="$sys" 'BEGIN { printf "%d", (u + s) * 1000 }'
}
secs() { printf "%d.%03d" $(($1 / 1000)) $(($1 % 1000)); }
ms=$(cpu_ms "$n")
ms4=$(cpu_ms $((n / 4)))
sed 's/^/# /' "$tmp/$n.stats"
echo "# uwprof table on $n functions: $(secs "$ms") s of CPU time; on $((n / 4)): $(secs "$ms4") s"
expect "table of $n functions: exit 0" 0 "$(cat "$tmp/$n.rc")"
expect "every function in the table" \
	"functions: $((n + n / 60 + 1)) in the inputs, $((n + n / 60 + 1)) in the table" \
	"$(head -n 1 "$tmp/$n.stats" | cut -d, -f1-2)"
# Four times the functions take about 4.3 times the time (n log n), a
# quadratic loop sixteen; the ratio does not depend on the machine's
# pace, which moved the time of the large run alone from 7.2 to 10.3 s
# on this project's CI host.  The absolute limit only catches what is far
# off.
if [ "$ms4" -gt 0 ] && [ $((ms * 10)) -le $((ms4 * 80)) ] && [ "$ms" -le 30000 ]; then
	ok "4x the functions in $((ms * 10 / ms4 / 10)).$((ms * 10 / ms4 % 10))x the CPU time (limit 8x; $(secs "$ms") s, limit 30 s)"
else
	fail "4x the functions in $(secs "$ms") s against $(secs "$ms4") s of CPU time (limit 8x, and 30 s)"
fi
finish
