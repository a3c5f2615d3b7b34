#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# An lld-linked file's PLT (mkelf.py --lld-plt): .plt after .text, each
# stub padded with lld's trap word, no mapping symbols there (stripped),
# and the exception index ended by lld's CANTUNWIND sentinel at the end of
# .text.  The sentinel covers no code, so every stub is decoded: PLT0
# pops lr after its push, each entry returns to lr.  Twice: the sentinel
# right at .plt's start (.text ends 16-byte aligned), and in the padding
# before it.  The last function of .text keeps its own EHABI rule.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
UWPROF=${UWPROF:-build/host/uwprof}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
STUBS=5

for funcs in 16 17; do
	case $funcs in
	16) where="at .plt's start" ;;
	*) where="before .plt" ;;
	esac
	so=$tmp/lld$funcs.so
	python3 "$here/mkelf.py" "$so" --funcs $funcs --lld-plt $STUBS
	if ! "$UWPROF" table "$so" -o "$tmp/t.uwt" --stats \
		--report "$tmp/report" >"$tmp/stats"; then
		fail "sentinel $where: uwprof table failed"
		continue
	fi
	expect "sentinel $where: PLT0 and every stub decoded" \
		"$((STUBS + 1)) from plt" \
		"$(grep -o '[0-9]* from plt' "$tmp/stats")"
	expect "sentinel $where: nothing undecoded" "" \
		"$(grep plt-undecoded "$tmp/report")"
	"$UWPROF" dump "$tmp/t.uwt" >"$tmp/dump"
	plt=$(printf '0x%x' $(( (0x1000 + 8 * funcs + 15) / 16 * 16 )))
	expect "sentinel $where: PLT0 pops lr after its push" \
		"  +0x4     uit 1     pop {lr}; finish" \
		"$(sed -n "/^$plt\\.\\./{n;s/uit [0-9]*/uit 1/;p}" "$tmp/dump")"
	entries=0
	for ((a = plt + 32; a < plt + 32 + 16 * STUBS; a += 16)); do
		row=$(sed -n "/^$(printf '0x%x..0x%x' $a $((a + 16))):/{n;p}" \
			"$tmp/dump")
		[[ $row == *"+0x0 "*" finish" && $row != *pop* ]] &&
			entries=$((entries + 1))
	done
	expect "sentinel $where: every entry returns to lr" "$STUBS" "$entries"
	last=$(printf '0x%x' $((0x1000 + 8 * (funcs - 1))))
	expect "sentinel $where: the last .text function keeps its rule" \
		"pop {r4, lr}; finish" \
		"$(sed -n "/^$last\\.\\./{n;s/.*uit [0-9]* *//;p}" "$tmp/dump")"
done
finish
