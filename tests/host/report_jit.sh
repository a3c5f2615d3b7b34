#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# JIT frames named in every report format from the symbol files record
# copies (docs/DATAFILE.md, type 10): a perf map for one process (its
# code in an anonymous mapping, "//anon"), a jitdump for another (its
# code in no mapping).  The symbol seen last that
# covers an address names it; an address no file names stays [unknown];
# a process's file never names another's code.  Data files are written
# by uwdata.py.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
UWPROF=${UWPROF:-$here/../../build/host/uwprof}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

PYTHONPATH=$here python3 - "$tmp/jit.data" <<'PY' || { fail "uwdata.py"; finish; exit 1; }
import sys
import uwdata
w = uwdata.Writer(sys.argv[1])
w.process(100, '/usr/bin/node')
w.process(101, '/usr/bin/node')
# pid 100's JIT code is in anonymous memory the side-band reported
w.mapping(100, 0x50000000, 0x50100000, 0, '//anon')
# pid 100: a perf map; the later line over 0x50000000 wins where it covers
w.jitmap(100, uwdata.JIT_PERF_MAP,
         b'50000000 100 JS:*hot /w/app.js:12\n'
         b'50000100 100 JS:*caller /w/app.js:3\n'
         b'bad line\n'
         b'50000000 40 JS:*newer /w/app.js:20\n')
# pid 101: a jitdump with the code bytes
w.jitmap(101, uwdata.JIT_DUMP, uwdata.jitdump(101, [
    (0x60000000, 0x80, 'JS:~dumped /w/lib.js:7', b'\0' * 0x80)]))
for t in range(10):
    w.sample(100, 100, 1000 + t, [0x50000010, 0x50000105, 0x70000001])
for t in range(5):
    w.sample(100, 100, 2000 + t, [0x50000050, 0x50000105])
for t in range(4):
    w.sample(101, 101, 3000 + t, [0x60000010, 0x50000105])
w.close()
PY

rep() { "$UWPROF" report -q "$@" "$tmp/jit.data"; }

out=$(rep -f folded)
expect "folded: JIT names, newest over older, [unknown] outside" \
"JS:*caller /w/app.js:3;JS:*hot /w/app.js:12 5
[unknown];JS:*caller /w/app.js:3;JS:*newer /w/app.js:20 10
[unknown];JS:~dumped /w/lib.js:7 4" "$(LC_ALL=C sort <<<"$out")"

out=$(rep -f text)
if grep -q 'JS:\*newer /w/app.js:20' <<<"$out" &&
   grep -q 'perf-100.map' <<<"$out"; then
	ok "text: JIT functions in their process's perf map module"
else
	fail "text: JIT functions ($out)"
fi

out=$(rep -f perf-script)
if grep -q '50000010 JS:\*newer /w/app.js:20 (/tmp/perf-100.map)' <<<"$out"; then
	ok "perf-script: the frame as perf prints a perf map's"
else
	fail "perf-script: $(head -5 <<<"$out")"
fi

out=$(rep -f json)
if python3 -c 'import json,sys; d=json.load(sys.stdin); names=[f["name"] for f in d["functions"]]; sys.exit(0 if "JS:~dumped /w/lib.js:7" in names else 1)' <<<"$out"; then
	ok "json: the jitdump's function"
else
	fail "json: $(head -c 300 <<<"$out")"
fi

rep -f svg -o "$tmp/f.svg"
if grep -q 'JS:\*hot /w/app.js:12' "$tmp/f.svg"; then
	ok "svg: JIT frames in the flame graph"
else
	fail "svg: no JIT frame"
fi

if command -v go >/dev/null; then
	rep -f pprof -o "$tmp/p.pb.gz"
	out=$(HOME=$tmp GOCACHE=$tmp/go go tool pprof -traces "$tmp/p.pb.gz" 2>"$tmp/err")
	if grep -q 'JS:\*newer /w/app.js:20' <<<"$out" &&
	   grep -q 'JS:~dumped /w/lib.js:7' <<<"$out"; then
		ok "pprof: JIT locations named, per process"
	else
		fail "pprof: $(head -20 <<<"$out") $(cat "$tmp/err")"
	fi
else
	skip "pprof: golang-go is not installed (make setup)"
fi
finish
