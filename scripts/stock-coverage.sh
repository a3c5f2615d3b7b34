#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# stock-coverage.sh UWPROF WORKDIR OUT: Debian armhf packages exactly as
# shipped (stripped, no debug files), each file tabled with
# "uwprof table FILE --no-debug-file --prologue-analysis --stats", once
# with --no-discovery (only the functions a symbol, exidx or the PLT
# names) and once with function discovery.  Writes a markdown table with
# the commit measured to OUT (make stock-coverage puts it into
# docs/TABLES.md).  Needs the armhf architecture in dpkg (make setup).
set -euo pipefail
uwprof=$1 work=$2 out=$3
top=$(cd "$(dirname "$0")/.." && pwd)

# package file-name: the file to table (its name, found in the package)
files="coreutils:ls coreutils:sort gzip:gzip sed:sed grep:grep tar:tar
sqlite3:sqlite3 libsqlite3-0:libsqlite3.so.0 lua5.4:lua5.4
liblua5.4-0:liblua5.4.so.0 libc6:libc.so.6 libstdc++6:libstdc++.so.6
libgcc-s1:libgcc_s.so.1 busybox-static:busybox"

fail() { echo "stock-coverage: $*" >&2; exit 1; }

# The real file named NAME in the unpacked packages (symlinks followed).
find_file() {
	local hit
	hit=$(find "$work/root" -name "$1" \( -type f -o -type l \) | sort | head -n 1)
	[ -n "$hit" ] || fail "no file $1 in the packages"
	readlink -f "$hit"
}

# covered PERCENT and discovered COUNT from one --stats run
measure() {
	local stats
	stats=$("$uwprof" table "$1" --no-debug-file --prologue-analysis \
		--stats -o "$work/t.uwt" "${@:2}" 2>&1) ||
		fail "uwprof table $1 $*: $stats"
	echo "$(sed -n 's/^\.text covered: .*(\(.*%\))$/\1/p' <<<"$stats") $(
		sed -n 's/^functions discovered (no symbol): \([0-9]*\);.*/\1/p' <<<"$stats")"
}

# shellcheck disable=SC2046
"$top/scripts/fetch-stock.sh" "$work" $(for f in $files; do echo "${f%%:*}"; done | sort -u)
{
	echo "Measured by \`make stock-coverage\` at commit $(git -C "$top" rev-parse --short HEAD)$(
		git -C "$top" diff --quiet HEAD -- 2>/dev/null || echo +changes), $(date -u +%Y-%m-%d)," \
		"on $(nproc) cores (load average $(cut -d' ' -f1 /proc/loadavg) at the start)."
	echo
	echo "| package | file | .text covered, named functions only | with discovery (starts found) | seconds |"
	echo "|---|---|---|---|---|"
	for f in $files; do
		path=$(find_file "${f#*:}")
		read -r before _ < <(measure "$path" --no-discovery)
		t0=$(date +%s.%N)
		read -r after found < <(measure "$path")
		t1=$(date +%s.%N)
		printf '| %s | `%s` | %s | %s (%s) | %.1f |\n' "${f%%:*}" \
			"${path#"$work/root"}" "$before" "$after" "${found:-0}" \
			"$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
	done
} >"$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
