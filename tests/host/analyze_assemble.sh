#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench's one page from several kernels' runs (bench/perf/analyze.py
# --assemble, bench/perf/bench-kernels.sh): the first kernel's page with
# the kernels' figures side by side before its "## Machine", every other
# kernel's page a level down in its own marked section (replacing that
# section of the old page), the old page's other marked sections kept in
# their order, and the main page's own marked blocks not taken twice.
# Also the uploads' figures (upload_lines) from an upload.txt.
set -u
. "$(dirname "$0")/lib.sh"
th_init
need_checker
A=$top/bench/perf/analyze.py

cat >"$tmp/a.md" <<'EOF'
# Benchmarks

Written by `make bench`.

## Machine

| guest | armmp |

## Cost in guest instructions

a-cost
EOF
cat >"$tmp/b.md" <<'EOF'
# Benchmarks

Written by `make bench` on arm64.

## Machine

b-machine

<!-- make stale: begin -->
not to be taken
<!-- make stale: end -->
EOF
summary() {	# KERNEL UWPROF-SLOPE FP-SLOPE
	cat <<EOF
{"kernel": "$1", "perf": "perf version 6.1", "progs": ["lua-gcc"],
 "freqs": [100, 1000], "tools": ["uwprof", "fp"],
 "figures": {
  "lua-gcc uwprof": {"slope": $2, "slope_hi": $2, "hz": {
   "100": {"cpu_ovh": 0.3, "ok": 100.0, "h_mean": 3000, "h_p99": 5000, "h_max": 9000, "frames": 20.0},
   "1000": {"cpu_ovh": 0.7, "ok": 99.9, "h_mean": 2900, "h_p99": 4900, "h_max": 8000, "frames": 20.0}}},
  "lua-gcc fp": {"slope": $3, "slope_hi": $3, "hz": {
   "100": {"cpu_ovh": 19.0, "ok": 0.0, "h_mean": null, "h_p99": null, "h_max": null, "frames": 1.0},
   "1000": {"cpu_ovh": 20.0, "ok": 0.0, "h_mean": null, "h_p99": null, "h_max": null, "frames": 1.0}}}}}
EOF
}
summary 6.1.0-armmp 3000 6000 >"$tmp/a.json"
summary 6.1.0-arm64 4000 5000 >"$tmp/b.json"
cat >"$tmp/doc.md" <<'EOF'
# Benchmarks

old text, not kept

<!-- make notes: begin -->
hand-kept notes
<!-- make notes: end -->

<!-- make bench-arm64-6.1: begin -->
the old arm64 part
<!-- make bench-arm64-6.1: end -->

<!-- make bench-big: begin -->
bench-big's figures
<!-- make bench-big: end -->
EOF
/usr/bin/python3 "$A" --assemble --doc "$tmp/doc.md" \
	--page "armmp-6.1=$tmp/a.md" --kernel-summary "armmp-6.1=$tmp/a.json" \
	--page "arm64-6.1=$tmp/b.md" --kernel-summary "arm64-6.1=$tmp/b.json" \
	>"$tmp/out" 2>&1 || fail "--assemble failed: $(tail -n 1 "$tmp/out")"
d=$tmp/doc.md
expect "headings in order" \
"# Benchmarks
## Kernels side by side
## Machine
## Cost in guest instructions
## Benchmarks on arm64-6.1
### Machine" "$(grep '^#' "$d")"
expect "marked sections: the new arm64 part first, then the old page's others in order" \
"<!-- make bench-arm64-6.1: begin -->
<!-- make notes: begin -->
<!-- make bench-big: begin -->" "$(grep -- '-->' "$d" | grep begin)"
grep -q 'hand-kept notes' "$d" && grep -q "bench-big's figures" "$d" &&
	! grep -q 'the old arm64 part' "$d" && ! grep -q 'not to be taken' "$d" &&
	! grep -q 'old text, not kept' "$d" && ok "the kept and the dropped text" ||
	fail "the kept and the dropped text: $(cat "$d")"
# uwprof against perf fp between the two highest rates, each kernel
expect "side by side: uwprof's marginal cost against perf fp's" \
"| lua-gcc | uwprof | 3000 / 3000 | 0.50× | +0.70% | 2900 / 4900 / 8000 | 99.9% | 20.0 |
| lua-gcc | uwprof | 4000 / 4000 | 0.80× | +0.70% | 2900 / 4900 / 8000 | 99.9% | 20.0 |" \
	"$(grep '^| lua-gcc | uwprof' "$d")"

# upload_lines: two parts of one table, one of another
mkdir -p "$tmp/up"
cat >"$tmp/up/upload.txt" <<'EOF'
open kb=380
table file=/bench/up/chromium.uwt part=0 bytes=1000000 ns=30000000 kb=1024 verr=0
table file=/bench/up/chromium.uwt part=1 bytes=1000000 ns=34000000 kb=1024 verr=0
table file=/bench/up/libnode.uwt part=0 bytes=500000 ns=16000000 kb=512 verr=1
EOF
PYTHONPATH=$top/bench/perf /usr/bin/python3 -c '
import sys, analyze
print("\n".join(analyze.upload_lines(sys.argv[1])))' "$tmp/up" >"$tmp/upl" 2>&1 ||
	fail "upload_lines: $(tail -n 1 "$tmp/upl")"
expect "upload_lines: time, per 10 MB and memory per table" \
"| chromium | 2 | 2000000 | 64.0 | 32.0 | 0.320 | 2048 | 1024.0 kB |
| libnode | 1 | 500000 | 16.0 | 32.0 | 0.320 | 512 | 512.0 kB | 1 refused!" \
	"$(grep -E '^\| (chromium|libnode) ' "$tmp/upl")"
finish
