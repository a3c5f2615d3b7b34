#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Split tables on the host: lua5.4 tabled in parts (--test-fot-limit, so
# that a small file needs several, as chromium does at 65,535) against the
# same file in one table.  The container (version 2 only when split), dump
# (every part, the same rows), unwind (the same frames from every part),
# --raw and --chrome-compat (one table: refused, saying why).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
top=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$top/build}
UWPROF=${UWPROF:-$BUILD/host/uwprof}
lua=$BUILD/arm/lua-gcc/lua
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ ! -e "$lua" ]; then
	skip "split tables: no $lua (make lua-arm)"
	finish
	exit 0
fi
"$UWPROF" table "$lua" --prologue-analysis -o "$tmp/one.uwt" ||
	fail "uwprof table $lua"
"$UWPROF" table "$lua" --prologue-analysis --test-fot-limit 300 --stats \
	-o "$tmp/split.uwt" >"$tmp/stats" || fail "uwprof table $lua in parts"
parts=$(sed -n 's/^parts: \([0-9]*\) tables.*/\1/p' "$tmp/stats")
if [ "${parts:-0}" -gt 2 ]; then
	ok "--stats: $parts parts"
else
	fail "--stats names no parts: $(cat "$tmp/stats")"
fi
version() { od -An -tu4 -j8 -N4 "$1" | tr -d ' '; }
expect "one table: container version 1" 1 "$(version "$tmp/one.uwt")"
expect "several: container version 2" 2 "$(version "$tmp/split.uwt")"

# dump: every part with its range, then every function's rows.  The rows
# must be those of the single table: the entry lines less their FOT and
# UIT indexes, with the refuse filler that ends each part but the last
# (at the next part's start, outside its range) left out.
"$UWPROF" dump "$tmp/split.uwt" >"$tmp/split.dump" || fail "dump split"
"$UWPROF" dump "$tmp/one.uwt" >"$tmp/one.dump" || fail "dump one"
expect "dump lists every part" "$parts" "$(grep -c '^part [0-9]* of ' "$tmp/split.dump")"
rows() {
	awk '
	/^part / { if (held != "") held = ""; next }
	/^0x/ { if (held != "") print held; sub(/: fot.*/, ""); key = $0; held = key; next }
	/^  \+/ { $2 = $2; sub(/uit [0-9]* */, ""); held = held " |" $0 }
	END { if (held != "") print held }' "$1"
}
# A part's last entry is dropped by "part" before it is printed, unless it
# is the whole table's last; the single table keeps its own last.
rows "$tmp/split.dump" >"$tmp/split.rows"
rows "$tmp/one.dump" >"$tmp/one.rows"
missing=$(comm -23 <(sort "$tmp/one.rows") <(sort "$tmp/split.rows") | head -n 3)
if [ -z "$missing" ] && [ "$(wc -l <"$tmp/one.rows")" -gt 900 ]; then
	ok "every row of the single table ($(wc -l <"$tmp/one.rows") entries) is in a part"
else
	fail "rows of the single table not in the parts: $missing"
fi
extra=$(comm -13 <(sort "$tmp/one.rows") <(sort "$tmp/split.rows") | head -n 3)
expect "the parts hold no other rows" "" "$extra"
"$UWPROF" dump --stats "$tmp/split.uwt" >"$tmp/split.st"
expect "dump --stats: the coverage of the whole" \
	"$("$UWPROF" dump --stats "$tmp/one.uwt" | grep '^.text covered')" \
	"$(grep '^.text covered' "$tmp/split.st")"

# unwind: the same frames through the parts as through the one table, for
# a pc at the start of every part, on a stack of return addresses spread
# over the code (each walk runs through several functions).
read -r text_addr text_size < <(sed -n 's/^container: .* code \(0x[0-9a-f]*\) size \(0x[0-9a-f]*\).*/\1 \2/p' "$tmp/one.dump")
python3 -c '
import struct, sys
a, n = int(sys.argv[1], 0), int(sys.argv[2], 0)
words = [a + (k * 0x2f4 % n) | 1 for k in range(1024)]
open(sys.argv[3], "wb").write(struct.pack("<1024I", *words))' \
	"$text_addr" "$text_size" "$tmp/stack"
same=0 deep=0 differ=""
while read -r start; do
	for pc in $((start + 8)) $((start + 0x40)); do
		a=$("$UWPROF" unwind --table "$tmp/one.uwt" --stack "$tmp/stack" \
			--stack-base 0x7e000000 --reg pc=$pc 2>&1)
		b=$("$UWPROF" unwind --table "$tmp/split.uwt" --stack "$tmp/stack" \
			--stack-base 0x7e000000 --reg pc=$pc 2>&1)
		if [ "$a" = "$b" ]; then
			same=$((same + 1))
			[ "$(grep -c '^#' <<<"$a")" -lt 3 ] || deep=$((deep + 1))
		else
			differ="pc $pc: $(tr '\n' ' ' <<<"$a") / $(tr '\n' ' ' <<<"$b")"
		fi
	done
done < <(sed -n 's/^part [0-9]* of [0-9]*: code \(0x[0-9a-f]*\) .*/\1/p' "$tmp/split.dump")
if [ -z "$differ" ] && [ "$deep" -gt 0 ]; then
	ok "unwind: the same frames at $same pcs over the parts ($deep walks of 3 frames or more)"
else
	fail "unwind differs (${differ:-no walk of 3 frames})"
fi

# One table only: --raw and --chrome-compat refuse a split, saying why.
if "$UWPROF" table "$lua" --prologue-analysis --test-fot-limit 300 --raw \
	-o "$tmp/r.bin" 2>"$tmp/err"; then
	fail "--raw wrote a split table"
else
	grep -q 'drop --raw' "$tmp/err" && ok "--raw refuses parts: $(cat "$tmp/err")" ||
		fail "--raw: $(cat "$tmp/err")"
fi
if "$UWPROF" table "$lua" --chrome-compat --test-fot-limit 300 \
	-o "$tmp/c.uwt" 2>"$tmp/err"; then
	fail "--chrome-compat made parts"
else
	grep -q 'chrome-compat makes one table' "$tmp/err" &&
		ok "--chrome-compat keeps one table: $(cat "$tmp/err")" ||
		fail "--chrome-compat: $(cat "$tmp/err")"
fi
finish
