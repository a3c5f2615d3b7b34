# SPDX-License-Identifier: GPL-2.0
# Sourced by the test drivers: reading and adding up the count lines that
# every test program ends with, "[NAME: ]N passed, N failed[, N skipped]".

count_passed=0 count_failed=0 count_skipped=0

# count_add LOG RC [NAME]: add LOG's last count line to the totals.  A
# program that printed no count line, or exited non-zero without counting
# a failure, counts as one failure.  Sets count_last_failed to what this
# log added to the failures.
count_add() {
	local line p f s name=${3:-$(basename "$1" .log)}
	line=$(grep -E '([[:alnum:]_./-]+: )?[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
	if [ -z "$line" ]; then
		echo "# $name: no count line (exit $2)"
		count_failed=$((count_failed + 1))
		count_last_failed=1
		return
	fi
	p=$(grep -oE '[0-9]+ passed' <<<"$line" | grep -oE '[0-9]+' || echo 0)
	f=$(grep -oE '[0-9]+ failed' <<<"$line" | grep -oE '[0-9]+' || echo 0)
	s=$(grep -oE '[0-9]+ skipped' <<<"$line" | grep -oE '[0-9]+' || echo 0)
	if [ "$2" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "# $name: exit $2 and no failed test counted"
		f=1
	fi
	count_passed=$((count_passed + p))
	count_failed=$((count_failed + f))
	count_skipped=$((count_skipped + s))
	count_last_failed=$f
}

# count_line LABEL: the closing line.
count_line() {
	echo "$1: $count_passed passed, $count_failed failed, $count_skipped skipped"
}
