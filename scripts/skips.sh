#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# skips.sh -e EXPECTED [-e EXPECTED...] COUNTED LOG...
# The skips in the logs of a test run, by reason, against the lists of the
# skips expected there (tests/skips/host.txt for the host's tests,
# tests/skips/KERNEL.txt for a kernel's; tests/skips/README).
# A skip is a TAP line "ok N - REASON # SKIP" (tests/host/lib.sh) or
# "ok N # SKIP REASON" (the kselftest harness).  Prints "skipped: N x
# REASON" per reason, most frequent first, each marked "(expected)" or
# "(NOT EXPECTED)"; exits 1 if any reason matches no line of the lists, or
# if COUNTED (the skips the count lines added up, -1 not to compare)
# differs from the skip lines found: a skip this script cannot read is
# one it cannot judge either.
set -uo pipefail
lists=()
while [ "${1:-}" = -e ]; do
	[ -f "$2" ] || { echo "skips: no list of expected skips $2" >&2; exit 1; }
	lists+=("$2")
	shift 2
done
counted=$1
shift

# The patterns: the lists' lines without comments and blank lines.
patterns=$(sed -e 's/^[[:space:]]*#.*$//' -e '/^[[:space:]]*$/d' "${lists[@]}")

reasons=$(cat "$@" 2>/dev/null | tr -d '\r' | sed -nE \
	-e 's/^ok [0-9]+ - (.*) # SKIP[[:space:]]*$/\1/p' \
	-e 's/^ok [0-9]+ # SKIP (.*)$/\1/p' \
	-e 's/^1\.\.0 # SKIP (.*)$/\1/p')
found=0
[ -z "$reasons" ] || found=$(wc -l <<<"$reasons")
bad=0
while read -r n reason; do
	[ -n "$reason" ] || continue
	if [ -n "$patterns" ] && grep -qxEf <(printf '%s\n' "$patterns") <<<"$reason"; then
		echo "skipped: $n x $reason (expected)"
	else
		echo "skipped: $n x $reason (NOT EXPECTED: in none of ${lists[*]})"
		bad=1
	fi
done < <([ -z "$reasons" ] || sort <<<"$reasons" | uniq -c | sort -rn)
if [ "$counted" -ge 0 ] && [ "$counted" -ne "$found" ]; then
	echo "skips: the count lines say $counted skipped, the logs show $found skip lines"
	bad=1
fi
[ "$bad" -eq 0 ] && echo "skips: $found, each on the list (${lists[*]})"
exit $bad
