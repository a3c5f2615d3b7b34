#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# uwprof report on processes over time (docs/DATAFILE.md, "Order and
# meaning"), on data files written by uwdata.py: in a timed file each
# sample is resolved against the mapping its process had at its time
# (two libraries at one address, samples written before the records they
# need), a fork gives the child its parent's mappings and name, an exec
# starts a new image, a reused pid is another process, names come from
# comm records; an older (untimed) file is still resolved in file order.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
top=$(cd "$here/../.." && pwd)
UWPROF=${UWPROF:-$top/build/host/uwprof}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

HERE=$here FIXTURE=$top/tests/data/report/fixture python3 - "$tmp" <<'EOF'
import os, sys
sys.path.insert(0, os.environ['HERE'])
import uwdata
d = sys.argv[1]
us = 1000

# Timed: the side-band's records may follow the samples that need them.
w = uwdata.Writer(d + '/timed.data', flags=uwdata.HDR_TIMED)
w.sample(10, 10, 150 * us, [0x10100])            # libx's time
w.sample(10, 10, 250 * us, [0x10100])            # liby's time
w.process(10, '/bin/busybox', 0)
w.comm(10, 10, 'sh', 0)
w.mapping(10, 0x10000, 0x20000, 0, '/lib/libx.so', bias=0, time_ns=100 * us)
w.mapping(10, 0x10000, 0x20000, 0, '/lib/liby.so', bias=0, time_ns=200 * us)
w.fork(11, 10, 300 * us)                          # child: parent's mappings
w.process(11, '/bin/busybox', 300 * us)
w.comm(11, 11, 'sh', 300 * us)
w.sample(11, 11, 350 * us, [0x10100])
w.process(11, '/bin/prog', 400 * us, flags=uwdata.PROC_EXEC)
w.comm(11, 11, 'prog', 400 * us, flags=uwdata.COMM_EXEC)
w.sample(11, 11, 450 * us, [0x10100])            # old image gone
w.comm(11, 12, 'worker', 460 * us)
w.sample(11, 12, 470 * us, [0x10100])            # a thread's own name
w.exit(11, 500 * us)
w.fork(11, 10, 600 * us)                          # the pid reused
w.comm(11, 11, 'sh', 600 * us)
w.sample(11, 11, 650 * us, [0x10100])
w.close()

# Recorded with -a: two programs, each its own root in folded and svg.
w = uwdata.Writer(d + '/all.data', flags=uwdata.HDR_TIMED | uwdata.HDR_ALL)
for pid, exe in ((20, '/bin/alpha'), (21, '/bin/beta')):
    w.process(pid, exe, 0)
    w.comm(pid, pid, os.path.basename(exe), 0)
    w.mapping(pid, 0x10000, 0x20000, 0, '/lib/libx.so', bias=0)
    w.sample(pid, pid, 100 * us, [0x10100])
w.sample(21, 21, 110 * us, [0x10100])
w.close()

# Code with no file on the device ([vdso]): its image is in the data file.
# The fixture stands in for it (spin at 0x504).
img = open(os.environ['FIXTURE'], 'rb').read()
bid = bytes.fromhex('8c6f16948112ea202375ded762476b22d38395ff')
w = uwdata.Writer(d + '/image.data', flags=uwdata.HDR_TIMED)
w.image(bid, img)
w.process(30, '/bin/prog', 0)
w.mapping(30, 0x40000, 0x41000, 0, '[vdso]', bias=0x40000, build_id=bid)
w.sample(30, 30, 100 * us, [0x40504])
w.close()

# Untimed (older files): file order; a sample before its mapping is unknown.
w = uwdata.Writer(d + '/untimed.data')
w.process(10, '/bin/alpha', 5)
w.sample(10, 10, 150 * us, [0x10100])
w.mapping(10, 0x10000, 0x20000, 0, '/lib/libx.so', bias=0, time_ns=1)
w.sample(10, 10, 160 * us, [0x10100])
w.process(10, '/bin/beta', 6, flags=uwdata.PROC_EXEC)
w.sample(10, 10, 170 * us, [0x10100])
w.close()

# A mapping path no file system forbids: invalid UTF-8, controls, markup.
w = uwdata.Writer(d + '/badpath.data', flags=uwdata.HDR_TIMED)
w.process(40, '/bin/prog', 0)
w.mapping(40, 0x10000, 0x20000, 0, b'/lib/b\xff\x01\x1b[31m<&\xc3.so',
          bias=0)
w.sample(40, 40, 100 * us, [0x10100])
w.close()
EOF

ps() { "$UWPROF" report -q -f perf-script "$@" |
	awk '/^[^[:space:]]/ {h = $1 " " $2} /\(/ {print h, $NF}'; }
expect "timed: each sample against its process's state at its time" \
"sh 10/10 (/lib/libx.so)
sh 10/10 (/lib/liby.so)
sh 11/11 (/lib/liby.so)
prog 11/11 ([unknown])
worker 11/12 ([unknown])
sh 11/11 (/lib/liby.so)" "$(ps "$tmp/timed.data")"
expect "timed: --comm prog" "1" \
	"$("$UWPROF" report -q -f folded --comm prog "$tmp/timed.data" | awk '{n += $NF} END {print n + 0}')"
if "$UWPROF" report -q "$tmp/timed.data" | grep -q '^# 6 samples of 3 processes'; then
	ok "timed: a fork and a reused pid are processes of their own"
else
	fail "timed: $("$UWPROF" report -q "$tmp/timed.data" | grep '^# [0-9]* samples')"
fi
expect "-a: a root per process in folded" \
"alpha;[libx.so] 1
beta;[libx.so] 2" "$("$UWPROF" report -q -f folded "$tmp/all.data")"
expect "-a: --no-per-process merges them" "[libx.so] 3" \
	"$("$UWPROF" report -q -f folded --no-per-process "$tmp/all.data")"
expect "--per-process on a one-program file" "sh;[libx.so] 1" \
	"$("$UWPROF" report -q -f folded --per-process --pid 10 --time ,0.0002 "$tmp/timed.data")"
if "$UWPROF" report -q -f svg "$tmp/all.data" | grep -q '<title>alpha '; then
	ok "-a: the flame graph has the process roots"
else
	fail "-a: no process root in the flame graph"
fi
if "$UWPROF" report -q -f perf-script "$tmp/all.data" | grep -qE '^\s+[0-9a-f]+ (alpha|beta) '; then
	fail "-a: a process root printed as a perf-script frame"
else
	ok "-a: perf-script frames are frames only"
fi
expect "an image in the data file names [vdso]'s frames" "spin ([vdso])" \
	"$("$UWPROF" report -q -f perf-script "$tmp/image.data" | awk '/\(/ {print $2, $3}')"
# The module's name is in each box's <title>: escaped as names are.
"$UWPROF" report -q -f svg "$tmp/badpath.data" >"$tmp/badpath.svg"
if err=$(python3 -c '
import sys, xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
titles = [t.text for t in ET.parse(sys.argv[1]).iter(ns + "title")]
want = "(b\ufffd\ufffd\ufffd[31m<&\ufffd.so)"
sys.exit(0 if any(want in t for t in titles) else "no title holds " + want)
' "$tmp/badpath.svg" 2>&1); then
	ok "svg: a mapping path with bad UTF-8 and controls is escaped"
else
	fail "svg: a mapping path with bad UTF-8 and controls: $err"
fi
expect "untimed: file order, exec ends the old image" \
"alpha 10/10 ([unknown])
alpha 10/10 (/lib/libx.so)
beta 10/10 ([unknown])" "$(ps "$tmp/untimed.data")"
finish
