#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# uwprof report on a recorded fixture (tests/data/report/fixture.data:
# tests/data/report/fixture, recorded in the VM with
#   uwprof record -F 500 --tables T -o fixture.data -- /data/fixture 300
# where T holds the tables of fixture, libc.so.6 and ld-linux-armhf.so.3).
# Golden text and folded output; the SVG parsed as XML with one box per
# call-tree node; JSON; damaged files; the record command's usage errors.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
UWPROF=${UWPROF:-$here/../../build/host/uwprof}
UWPROF=$(cd "$(dirname "$UWPROF")" && pwd)/$(basename "$UWPROF")
data=$here/../data/report
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$data" || exit 1

rep() { "$UWPROF" report -q --symfs . "$@"; }

# --- golden text and folded ---
expect "text report matches fixture.text" "$(cat fixture.text)" "$(rep fixture.data)"
rep -f folded fixture.data >"$tmp/folded"
expect "folded stacks match fixture.folded" "$(cat fixture.folded)" "$(cat "$tmp/folded")"

# The counts must add up to the samples the text report states.
samples=$(sed -n 's/^# \([0-9]*\) samples of.*/\1/p' fixture.text)
folded_sum=$(awk '{s += $NF} END {print s}' "$tmp/folded")
expect "folded counts add up to the samples" "$samples" "$folded_sum"

# The fixture's call tree: work_a spins about half the time, work_b's
# deep chain recurses four levels.
a=$(grep -E '(^|;)main;run;work_a;spin ' "$tmp/folded" | awk '{s += $NF} END {print s + 0}')
if [ "$a" -gt $((samples * 4 / 10)) ] && [ "$a" -lt $((samples * 7 / 10)) ]; then
	ok "main;run;work_a;spin holds 40-70% of the samples ($a of $samples)"
else
	fail "main;run;work_a;spin holds $a of $samples samples"
fi
if grep -q 'main;run;work_b;deep;deep;deep;deep;spin ' "$tmp/folded"; then
	ok "recursion shows as four deep frames"
else
	fail "no main;run;work_b;deep;deep;deep;deep;spin stack"
fi

# Without symbols, frames are named by module.
if "$UWPROF" report -q --symfs "$tmp" -f folded fixture.data | grep -q '^\[fixture\]\|;\[fixture\]'; then
	ok "no symbols: frames named [module]"
else
	fail "no symbols: frames named [module]"
fi

# --lines: source lines through libdw.
if rep --lines -f folded fixture.data | grep -qE 'spin fixture\.c:[0-9]+'; then
	ok "--lines adds fixture.c:LINE"
else
	fail "--lines adds fixture.c:LINE"
fi

# pprof: tests/host/report_pprof.sh; perf-script: report_views.sh and
# perf_script_npm.sh; the SVG in a browser: svg_browser.sh.

# --- SVG: XML, one box per node of the call tree ---
rep -f svg -o "$tmp/f.svg" fixture.data
if python3 - "$tmp/f.svg" "$tmp/folded" <<'EOF'
import sys, collections
import xml.etree.ElementTree as ET
ns = '{http://www.w3.org/2000/svg}'
root = ET.parse(sys.argv[1]).getroot()
boxes = collections.Counter()
for g in root.iter(ns + 'g'):
    if g.get('class') == 'n':
        assert g.find(ns + 'rect') is not None and g.find(ns + 'title') is not None
        boxes[(g.get('data-name'), int(g.get('data-d')), int(g.get('data-n')))] += 1
nodes = collections.Counter()
for line in open(sys.argv[2]):
    stack, n = line.rsplit(' ', 1)
    frames = stack.split(';')
    for d in range(1, len(frames) + 1):
        nodes[tuple(frames[:d])] += int(n)
want = collections.Counter((k[-1], len(k), v) for k, v in nodes.items())
if boxes != want:
    print('# svg boxes:', sorted(boxes.items())[:5], '... want', sorted(want.items())[:5])
    sys.exit(1)
print('# %d boxes for %d call-tree nodes' % (sum(boxes.values()), len(nodes)))
EOF
then ok "svg: one box per call-tree node, with its samples"; else fail "svg boxes"; fi
if grep -q '<script>' "$tmp/f.svg" && grep -q 'function zoom' "$tmp/f.svg" &&
   grep -q 'function search' "$tmp/f.svg"; then
	ok "svg: self-contained zoom and search script"
else
	fail "svg: zoom and search script"
fi

# --- JSON ---
if rep -f json fixture.data | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["samples"] == sum(s["count"] for s in d["stacks"]) == '"$samples"'
assert all(0 <= f < len(d["functions"]) for s in d["stacks"] for f in s["frames"])
'; then ok "json parses; stacks add up"; else fail "json"; fi

# --- --stats ---
rep --stats fixture.data >"$tmp/stats"
root=$(sed -n 's/^# fully unwound: [0-9.]*% (\([0-9]*\) of.*/\1/p' fixture.text)
stats_root=$(awk '$3 == "root" && $1 ~ /^[0-9]+$/ {print $1}' "$tmp/stats")
expect "--stats counts the fully unwound samples" "$root" "$stats_root"
if grep -q '/data/fixture$' "$tmp/stats" && grep -q 'Per function' "$tmp/stats"; then
	ok "--stats lists modules and functions"
else
	fail "--stats lists modules and functions"
fi

# The fixture was recorded before the module counted its lookups
if grep -q '^  (not counted: the module or the recorder is older' "$tmp/stats"; then
	ok "--stats: lookups of an older recording are not counted, not zero"
else
	fail "--stats: lookups of an older recording"
fi
# ... and with the counters: the fixture's stats record as a newer
# recorder writes it, from a module that counts them
python3 - fixture.data "$tmp/lookups.data" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
hsz = struct.unpack_from("<I", b, 12)[0]
out, pos = bytearray(b[:hsz]), hsz
while pos + 8 <= len(b):
    typ, size = struct.unpack_from("<II", b, pos)
    rec = b[pos:pos + size]
    if typ == 4:    # stats: flags UWPROF_STATS_LOOKUPS, the five counters
        p = bytearray(rec[8:]).ljust(256, b"\0")
        struct.pack_into("<II", p, 0, 296, 1)
        p += struct.pack("<5Q", 900, 100, 2970, 30, 1500)
        rec = struct.pack("<II", 4, 8 + len(p)) + p
    out += rec
    pos += size
open(sys.argv[2], "wb").write(out)
PY
rep --stats "$tmp/lookups.data" >"$tmp/stats2"
expect "--stats: sampled pcs' hit rate" \
	"  sampled pcs         90.00% hits  (900 of 1000 lookups)" \
	"$(grep '^  sampled pcs ' "$tmp/stats2")"
expect "--stats: return addresses' hit rate" \
	"  return addresses    99.00% hits  (2970 of 3000 lookups)" \
	"$(grep '^  return addresses ' "$tmp/stats2")"
expect "--stats: the caller loop's share" \
	"  in the caller loop  50.00% of the return addresses" \
	"$(grep '^  in the caller loop ' "$tmp/stats2")"

# --- damaged and foreign files ---
size=$(stat -c %s fixture.data)
head -c $((size - 13)) fixture.data >"$tmp/cut.data"
out=$(rep -f folded "$tmp/cut.data" 2>"$tmp/err"); rc=$?
n=$(awk '{s += $NF} END {print s + 0}' <<<"$out")
if [ "$rc" -eq 0 ] && grep -q 'cut short' "$tmp/err" && [ "$n" -gt 0 ] && [ "$n" -le "$samples" ]; then
	ok "a record cut short is skipped with a warning ($n samples kept)"
else
	fail "cut-short file: rc=$rc, $n samples, stderr: $(cat "$tmp/err")"
fi
head -c $((size / 2)) fixture.data >"$tmp/half.data"
if rep -f folded "$tmp/half.data" >/dev/null 2>"$tmp/err" && grep -q 'cut short\|no end record' "$tmp/err"; then
	ok "half a file still reports, with a warning"
else
	fail "half a file: $(cat "$tmp/err")"
fi

expect_usage() {
	local name=$1 pat=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ "$rc" -eq 2 ] && grep -qE -- "$pat" "$tmp/err"; then ok "$name"; else
		fail "$name (rc=$rc, stderr: $(cat "$tmp/err"))"
	fi
}
echo "not a data file" >"$tmp/bad.data"
expect_usage "not a data file: exit 2" "not a uwprof data file" rep "$tmp/bad.data"
expect_usage "missing file: exit 2" "cannot read" rep "$tmp/none.data"
{ head -c 8 fixture.data; printf '\x09\x00\x00\x00'; tail -c +13 fixture.data; } >"$tmp/v9.data"
expect_usage "newer version: exit 2" "version 9" rep "$tmp/v9.data"
expect_usage "unknown format: exit 2" "unknown format" rep -f png fixture.data

# --- record's usage errors (no device on the host) ---
expect_usage "record: nothing to profile" "nothing to profile" "$UWPROF" record
expect_usage "record: -F 0" "-F wants" "$UWPROF" record -F 0 -- true
expect_usage "record: bad -d" "-d wants" "$UWPROF" record -d x -- true
expect_usage "record: dead pid" "no process" "$UWPROF" record -p 1073741823
expect_usage "record: two targets" "more than one" "$UWPROF" record -a -p 1
expect_usage "record: -p and -t together" "more than one" "$UWPROF" record -p 1 -t 1
expect_usage "record: -t of no thread" "no thread 1073741823" "$UWPROF" record -t 1073741823
expect_usage "record: bad -t" "bad id 'x' in -t" "$UWPROF" record -t x
expect_usage "record: -t is no longer --tables" "bad id 'tables' in -t" \
	"$UWPROF" record -t tables -- true

# --- conventions: --version, help CMD, perf's letters ---
if "$UWPROF" --version | grep -qE '^uwprof [0-9.]+ \(data file version [0-9]+, device ABI [0-9]+\)$'; then
	ok "--version"
else
	fail "--version: $("$UWPROF" --version 2>&1)"
fi
for c in record report table; do
	expect "help $c is $c --help" "$("$UWPROF" $c --help)" "$("$UWPROF" help $c)"
done
expect_usage "help of no command" "no command 'nope'" "$UWPROF" help nope
expect "report -s dso is --sort dso" "$(rep --sort dso fixture.data)" "$(rep -s dso fixture.data)"
expect_usage "report -s takes a sort key, not a directory" "--sort wants" rep -s . fixture.data
if [ ! -e /dev/unwind_samples ]; then
	"$UWPROF" record -o "$tmp/x.data" -- true >/dev/null 2>"$tmp/err"; rc=$?
	if [ "$rc" -eq 1 ] && grep -q 'insmod uwprof.ko' "$tmp/err"; then
		ok "record without the module: says to load it"
	else
		fail "record without the module (rc=$rc): $(cat "$tmp/err")"
	fi
fi
finish
