#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# uwprof table / dump from the command line: breakpad input against bytes
# derived by hand from FORMAT-v2.md §5 (tests/data/table/worked.*), the
# container round trip, dump in words, usage errors.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
UWPROF=${UWPROF:-build/host/uwprof}
data=$here/../data/table
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

hexof() { od -An -v -tx1 "$1" | tr -d ' \n'; }

# --chrome-compat --raw: Chrome's bytes for the worked example (§5.9), a
# tombstone, a gap (trivial filler) and the trailing refuse filler.
if "$UWPROF" table --breakpad "$data/worked.sym" --text-start 0x1000 \
	--chrome-compat --raw -o "$tmp/c.bin"; then
	expect "breakpad --chrome-compat --raw gives Chrome's bytes" \
		"$(tr -d ' \n' <"$data/worked.chrome.hex")" "$(hexof "$tmp/c.bin")"
else
	fail "uwprof table --breakpad --chrome-compat"
fi

# The default mode encodes full states: here the same bytes.
"$UWPROF" table --breakpad "$data/worked.sym" --text-start 0x1000 --raw \
	-o "$tmp/d.bin"
expect "default mode agrees on a prologue-only function" \
	"$(hexof "$tmp/c.bin")" "$(hexof "$tmp/d.bin")"

# Container round trip: the blob inside is the raw blob.
"$UWPROF" table --breakpad "$data/worked.sym" --text-start 0x1000 \
	-o "$tmp/d.uwt"
expect "container ends with the raw blob" "$(hexof "$tmp/d.bin")" \
	"$(tail -c "$(stat -c %s "$tmp/d.bin")" "$tmp/d.uwt" | od -An -v -tx1 | tr -d ' \n')"
expect "container magic" "UWPROFT" "$(head -c 7 "$tmp/d.uwt")"

out=$("$UWPROF" dump "$tmp/d.uwt")
expect "dump: fp frame in words" \
	"  +0x4     uit 6     vsp = r7; vsp -= 8; pop {r4, r5, r7, lr}; finish" \
	"$(grep '+0x4 ' <<<"$out")"
expect "dump: function range" "0x1000..0x1020: fot 0" "$(head -n 1 <<<"$out")"
expect "dump: gap filler returns to lr" "  +0x0     uit 0     finish" \
	"$(sed -n '/^0x1020/{n;p}' <<<"$out")"
expect "dump: trailing refuse" "  +0x0     uit 1     refuse" \
	"$(tail -n 1 <<<"$out")"
stats=$("$UWPROF" dump --stats "$tmp/c.bin")
expect "dump --stats sizes" \
	"table: 73 bytes: header 32, page table 4 (1 pages), function table 16 (4 entries), FOT 10, UIT 11" \
	"$(head -n 1 <<<"$stats")"

# An epilogue: Chrome drops the rows after it; uwprof keeps them.
cat >"$tmp/epi.sym" <<'SYM'
STACK CFI INIT 2000 40 .cfa: sp 0 + .ra: lr
STACK CFI 2002 .cfa: sp 8 + .ra: .cfa -4 + ^ r4: .cfa -8 + ^
STACK CFI 2010 .cfa: sp 0 + .ra: lr
STACK CFI 2010 r4: r4
STACK CFI 2012 .cfa: sp 8 + .ra: .cfa -4 + ^ r4: .cfa -8 + ^
SYM
"$UWPROF" table --breakpad "$tmp/epi.sym" --text-start 0x2000 --chrome-compat \
	--raw -o "$tmp/e1.bin" --report "$tmp/e1.rep"
"$UWPROF" table --breakpad "$tmp/epi.sym" --text-start 0x2000 --raw \
	-o "$tmp/e2.bin"
rows() { "$UWPROF" dump "$1" --text-start 0x2000 |
	awk '/^0x2000/{f=1;next} /^0x/{f=0} f{ $2=""; $3=""; print }' |
	sed 's/  */ /g; s/^ //' | paste -sd'|'; }
expect "chrome-compat: rows from the epilogue on dropped" \
	"+0x2 pop {r4, lr}; finish|+0x0 finish" "$(rows "$tmp/e1.bin")"
grep -q "epilogue-dropped" "$tmp/e1.rep" && ok "epilogue drop reported" ||
	fail "epilogue drop reported"
expect "default: epilogue and later rows kept" \
	"+0x12 pop {r4, lr}; finish|+0x10 finish|+0x2 pop {r4, lr}; finish|+0x0 finish" \
	"$(rows "$tmp/e2.bin")"

# Usage errors exit 2 with a message.
"$UWPROF" table --breakpad "$data/worked.sym" -o "$tmp/x" 2>"$tmp/err"
expect "missing --text-start: exit 2" 2 $?
grep -q -- "--text-start" "$tmp/err" && ok "message names --text-start" ||
	fail "message names --text-start"
"$UWPROF" table /etc/passwd -o "$tmp/x" 2>"$tmp/err"
expect "not an ELF: exit 2" 2 $?
printf 'garbage!' >"$tmp/bad.bin"
"$UWPROF" dump "$tmp/bad.bin" 2>"$tmp/err"
expect "dump of garbage: exit 2" 2 $?
finish
