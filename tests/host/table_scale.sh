#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Table generation scales as n log n: a synthetic ARM32 library of 300,000
# functions (mkelf.py: half with DWARF CFI, EHABI inline/extab/CANTUNWIND
# entries, about 2,000 distinct row lists, a 5,000-stub .plt, a mapping
# symbol per function) must build in 10 s of CPU time.  The quadratic loops this
# guards against took minutes at that size.  TABLE_SCALE_FUNCS overrides
# the count.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
UWPROF=${UWPROF:-$here/../../build/host/uwprof}
n=${TABLE_SCALE_FUNCS:-300000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 "$here/mkelf.py" "$tmp/big.so" --funcs "$n" --dwarf-every 2 \
	--extab-every 7 --cantunwind-every 11 --varied --plt $((n / 60))
# CPU time (user + system), not wall time: the machine may be busy with
# other builds, which stretches wall time but not the work done.
TIMEFORMAT='%3U %3S'
{ time "$UWPROF" table "$tmp/big.so" -o "$tmp/big.uwt" --stats \
	>"$tmp/stats"; } 2>"$tmp/time"
rc=$?
read -r user sys <"$tmp/time"
ms=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%d", (u + s) * 1000 }')
secs=$(printf "%d.%03d" $((ms / 1000)) $((ms % 1000)))
sed 's/^/# /' "$tmp/stats"
echo "# uwprof table on $n functions: $secs s of CPU time"
expect "table of $n functions: exit 0" 0 $rc
expect "every function in the table" \
	"functions: $((n + n / 60 + 1)) in the inputs, $((n + n / 60 + 1)) in the table" \
	"$(head -n 1 "$tmp/stats" | cut -d, -f1-2)"
if [ "$ms" -le 10000 ]; then
	ok "built in $secs s of CPU time (limit 10 s)"
else
	fail "built in $secs s of CPU time (limit 10 s)"
fi
finish
