#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# uwprof report's per-sample export and views, on the recorded fixture
# (see report_cli.sh) and on small data files written by uwdata.py:
# -f perf-script folded by the rules of stackcollapse-perf.pl against
# -f folded; --pid/--tid/--comm/--time in every format; the [kernel] leaf;
# --sort dso; --children.
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
sum() { awk '{s += $NF} END {print s + 0}'; }
nsamples() { grep -c '^[^[:space:]]' || true; }	# perf-script header lines
text_samples() { sed -n 's/^# \([0-9]*\) samples of.*/\1/p'; }

# --- perf-script, folded as stackcollapse-perf.pl folds it ---
samples=$(rep fixture.data | text_samples)
rep -f perf-script fixture.data >"$tmp/ps"
if python3 "$here/perf_script_collapse.py" <"$tmp/ps" >"$tmp/ps.folded" 2>"$tmp/err"; then
	ok "perf-script parses by stackcollapse-perf.pl's rules"
else
	fail "perf-script does not parse: $(cat "$tmp/err")"
fi
expect "perf-script: one sample per recorded sample" "$samples" "$(nsamples <"$tmp/ps")"
if [ -s "$tmp/ps.folded" ] && ! grep -qv '^fixture;' "$tmp/ps.folded"; then
	ok "perf-script: the process name is the outermost frame"
else
	fail "perf-script: stacks not rooted at the process name"
fi
# Without the process-name frame they are -f folded's stacks.
sed 's/^fixture;//' "$tmp/ps.folded" | sort >"$tmp/a"
rep -f folded fixture.data | sort >"$tmp/b"
if [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"; then
	ok "perf-script folds to the same stacks as -f folded ($(wc -l <"$tmp/b") stacks)"
else
	fail "perf-script and -f folded differ"
	diff "$tmp/b" "$tmp/a" | head -10 | sed 's/^/#   /'
fi

# --- --time: two halves split between two samples, in every format ---
times=$(awk '/^[^[:space:]]/ {sub(":", "", $3); print $3}' "$tmp/ps")
half=$((samples / 2))
split=$(sed -n "$((half + 1))p" <<<"$times")
before=$(python3 -c "import sys; print('%.9f' % (float(sys.argv[1]) - 1e-9))" "$split")
# samples at or after the split's microsecond go to the second half
n_first=$(awk -v s="$split" '$1 + 0 < s + 0' <<<"$times" | grep -c "" || true)
first=$(rep -f folded --time ",$before" fixture.data | sum)
second=$(rep -f folded --time "$split," fixture.data | sum)
expect "--time ,T and --time T, split the samples ($n_first before $split)" \
	"$n_first $((samples - n_first))" "$first $second"
out_of_range=$(rep -f perf-script --time "$split," fixture.data |
	awk -v s="$split" '/^[^[:space:]]/ {sub(":", "", $3); if ($3 + 0 < s + 0) print $3}')
expect "--time: perf-script keeps only samples in range" "" "$out_of_range"
fmt_counts() {
	local f=$1
	shift
	echo "text $(rep "$@" "$f" | text_samples)"
	echo "folded $(rep -f folded "$@" "$f" | sum)"
	echo "perf-script $(rep -f perf-script "$@" "$f" | nsamples)"
	echo "json $(rep -f json "$@" "$f" | python3 -c 'import json,sys; print(json.load(sys.stdin)["samples"])')"
	echo "svg $(rep -f svg "$@" "$f" | grep -o '[0-9]* samples' | head -1 | cut -d' ' -f1)"
}
expect "--time applies to every format" \
	"$(printf 'text %s\nfolded %s\nperf-script %s\njson %s\nsvg %s' $second $second $second $second $second)" \
	"$(fmt_counts fixture.data --time "$split,")"
if rep --time "$split," fixture.data | grep -q "^# filtered: $second samples kept, $first left out"; then
	ok "text report says what the filter kept"
else
	fail "text report: no filtered line"
fi

# --- --pid, --tid, --comm on the fixture (one process) ---
pid=$(awk 'NR == 1 {split($2, a, "/"); print a[1]}' "$tmp/ps")
expect "--pid of the process keeps all" "$samples" "$(rep -f folded --pid "$pid" fixture.data | sum)"
expect "--pid of another keeps none" "0" "$(rep -f folded --pid $((pid + 1)) fixture.data | sum)"
expect "--tid of the thread keeps all" "$samples" "$(rep -f folded --tid "$pid" fixture.data | sum)"
expect "--comm fixture keeps all" "$samples" "$(rep -f folded --comm fixture fixture.data | sum)"
expect "--comm other keeps none" "0" "$(rep -f folded -c other fixture.data | sum)"

# --- a data file with two processes, three threads, a kernel sample ---
# written three ways: one record a sample ("single"); the samples in
# blocks, as uwprof record writes them (version 2, a UWD_SAMPLES record
# holds samples back to back: "blocks"); and a block cut short by a bad
# size ("bad"), which must give its good samples and a warning
for how in single blocks bad; do
HERE=$here python3 - "$tmp/multi-$how.data" "$how" <<'EOF'
import os, struct, sys
sys.path.insert(0, os.environ['HERE'])
import uwdata
how = sys.argv[2]
w = uwdata.Writer(sys.argv[1], freq_hz=100, version=1 if how == 'single' else 2)
w.process(10, '/bin/alpha')
w.process(20, '/usr/bin/beta')
w.mapping(10, 0x10000, 0x20000, 0, '/nonexistent/alpha', bias=0)
w.mapping(20, 0x30000, 0x40000, 0, '/nonexistent/beta', bias=0x30000)
w.mapping(30, 0x50000, 0x60000, 0, '/nonexistent/gamma', bias=0x50000)
s = 1000000000
blocks = how != 'single'
if blocks:
    w.begin_block()
w.sample(10, 10, 2 * s, [0x10100, 0x10200])
w.sample(10, 11, 3 * s, [0x10100, 0x10200])
if blocks:
    w.end_block()
    w.begin_block()
w.sample(10, 10, 4 * s, [0x10100, 0x10200], flags=uwdata.RF_KERNEL)
w.sample(20, 20, 5 * s, [0x30100])
if blocks:
    w.end_block(struct.pack('<H', 0) + bytes(38) if how == 'bad' else b'')
w.sample(30, 30, 6 * s, [0x50100])   # no process record: no name
w.close()
EOF
done
m=$tmp/multi-single.data
mrep() { "$UWPROF" report -q "$@"; }
expect "multi: --pid 10" "3" "$(mrep -f folded --pid 10 "$m" | sum)"
expect "multi: --pid 10,20" "4" "$(mrep -f folded --pid 10,20 "$m" | sum)"
expect "multi: --tid 11" "1" "$(mrep -f folded --tid 11 "$m" | sum)"
expect "multi: --comm beta" "1" "$(mrep -f folded --comm beta "$m" | sum)"
expect "multi: --comm alpha,beta" "4" "$(mrep -f folded --comm alpha,beta "$m" | sum)"
expect "multi: --comm and --tid together" "2" "$(mrep -f folded --comm alpha --tid 10 "$m" | sum)"
expect "multi: --time 3,5 (inclusive)" "3" "$(mrep -f folded --time 3,5 "$m" | sum)"
expect "multi: --time 3.5,4.5" "1" "$(mrep -f folded --time 3.5,4.5 "$m" | sum)"
expect "multi: perf-script headers" \
	"$(printf 'alpha 10/10 2.000000: 10000000 cpu-clock:\nalpha 10/11 3.000000: 10000000 cpu-clock:\nalpha 10/10 4.000000: 10000000 cpu-clock:\nbeta 20/20 5.000000: 10000000 cpu-clock:\n:30 30/30 6.000000: 10000000 cpu-clock:')" \
	"$(mrep -f perf-script "$m" | grep '^[^[:space:]]')"

# --- the same samples in blocks ---
expect "blocks: perf-script as from single records" \
	"$(mrep -f perf-script "$m")" "$(mrep -f perf-script "$tmp/multi-blocks.data" 2>&1)"
expect "blocks: a bad size in a block: the good samples" \
	"$(mrep -f perf-script "$m")" "$(mrep -f perf-script "$tmp/multi-bad.data" 2>/dev/null)"
if mrep -f folded "$tmp/multi-bad.data" 2>&1 >/dev/null | grep -q '1 malformed samples skipped'; then
	ok "blocks: the bad size is reported"
else
	fail "blocks: no warning for a bad size in a block"
fi

# --- the [kernel] leaf ---
expect "kernel-context sample: a [kernel] leaf" "[alpha];[alpha];[kernel] 1" \
	"$(mrep -f folded --time 4,4 "$m")"
if mrep -f perf-script --time 4,4 "$m" | grep -q '^	 *0 \[kernel\] (\[kernel.kallsyms\])$'; then
	ok "perf-script: the [kernel] frame in [kernel.kallsyms]"
else
	fail "perf-script: no [kernel] frame"
fi

# --- --sort dso ---
mrep -s dso "$m" >"$tmp/dso"
if awk '/by self/ {on = 1} /by total/ {on = 0} on && $NF == "[kernel]" && $3 == 1 {k = 1}
	on && $NF == "/nonexistent/alpha" && $3 == 2 {a = 1} END {exit !(k && a)}' "$tmp/dso"; then
	ok "--sort dso: self samples per module, [kernel] apart"
else
	fail "--sort dso rows"; sed 's/^/#   /' "$tmp/dso"
fi
self_sum=$(rep --sort dso fixture.data | awk '/by self/ {on = 1; next} /by total/ {on = 0}
	on && $1 ~ /%$/ {s += $3} END {print s + 0}')
expect "--sort dso: self samples add up" "$samples" "$self_sum"
fix_total=$(rep --sort dso fixture.data | awk '/by total/ {on = 1; next} on && $NF == "/data/fixture" {print $3}')
main_total=$(rep --top 1000 fixture.data | awk '/^# Top functions by total/ {on = 1; next}
	on && $NF == "main" {print $3}')
expect "--sort dso: a module's total counts each sample once" "$main_total" "$fix_total"

# --- --children ---
rep --children --top 1000 fixture.data >"$tmp/ch"
# FUNCTION's callers (and outermost) add up to its total, and so do its
# callees with its self samples, when it does not recurse.
check_links() {
	awk -v fn="$1" '
		/% total/ { on = ($(NF - 1) == fn); next }
		on && $3 == "from" { from += $2 }
		on && $3 == "to" { to += $2 }
		on && $3 == "self" { self = $2 }
		END { print from, to + self }' "$tmp/ch"
}
run_total=$(awk '/^# Top functions by total/ {on = 1; next} /^# Callers/ {on = 0}
	on && $NF == "run" {print $3}' "$tmp/ch")
expect "--children: run's callers and callees add up to its total" \
	"$run_total $run_total" "$(check_links run)"
if awk '/% total/ {on = ($(NF - 1) == "run")} on && $3 == "to" && $NF == "work_a" {f = 1} END {exit !f}' "$tmp/ch"; then
	ok "--children: run calls work_a"
else
	fail "--children: run -> work_a missing"
fi

# --- usage errors ---
expect_usage() {
	local name=$1 pat=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ "$rc" -eq 2 ] && grep -qE -- "$pat" "$tmp/err"; then ok "$name"; else
		fail "$name (rc=$rc, stderr: $(cat "$tmp/err"))"
	fi
}
expect_usage "--time without a comma" "--time wants" rep --time 5 fixture.data
expect_usage "--time START after END" "START is after END" rep --time 5,4 fixture.data
expect_usage "--time garbage" "--time wants" rep --time x,1 fixture.data
expect_usage "--pid garbage" "--pid wants" rep --pid 1,x fixture.data
expect_usage "--sort unknown" "--sort wants" rep -s cpu fixture.data
expect_usage "--children with folded" "text report" rep --children -f folded fixture.data
finish
