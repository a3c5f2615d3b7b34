#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The "uwprof unwind" contract: exact output on good runs, one line per
# frame and a stop reason; exit status 2 and a message on every kind of
# bad input.  Tables and stacks come from tests/data/unwind/mkblob.py.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
UWPROF=${UWPROF:-$here/../../build/host/uwprof}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$here/../data/unwind/mkblob.py" "$tmp" || { fail "mkblob.py"; finish; exit 1; }

A="$tmp/a.v2@0x10000"
B="$tmp/b.v2@0x40000"
SB=0x7eff0000

# run ARGS...: stdout to $out, stderr to $err, exit status to $rc
run() {
	out=$("$UWPROF" unwind "$@" 2>"$tmp/err")
	rc=$?
	err=$(cat "$tmp/err")
}

# expect_error NAME PATTERN ARGS...: exit 2, nothing on stdout, a message
expect_error() {
	local name=$1 pat=$2
	shift 2
	run "$@"
	if [ "$rc" -eq 2 ] && [ -z "$out" ] && grep -qE -- "$pat" <<<"$err"; then
		ok "$name"
	else
		fail "$name (rc=$rc, stderr: $err, stdout: $out)"
	fi
}

run --help
if [ "$rc" -eq 0 ] && grep -q '^usage: uwprof unwind --table' <<<"$out"; then
	ok "--help prints usage"
else
	fail "--help prints usage (rc=$rc)"
fi

run --table "$A" --stack "$tmp/lmtr.stack" --stack-base $SB --reg pc=0x10104
expect "four frames to the root marker" "#0 0x00010104
#1 0x00010211
#2 0x00010321
#3 0x00010405
stop: root" "$out"
expect "good run exits 0" 0 "$rc"

run --table "$A" --stack "$tmp/lmtr.stack" --stack-base 2130640896 \
	--reg pc=65796 --reg sp=2130640896
expect "decimal numbers, explicit sp" "#0 0x00010104
#1 0x00010211
#2 0x00010321
#3 0x00010405
stop: root" "$out"

run --table "$A" --table "$B" --stack "$tmp/cross.stack" --stack-base $SB \
	--reg pc=0x40004
expect "stack across two modules" "#0 0x00040004
#1 0x00040110
#2 0x00010321
#3 0x00010405
stop: root" "$out"

run --table "$B" --table "$A" --stack "$tmp/cross.stack" --stack-base $SB \
	--reg pc=0x40004
expect "table order does not matter" "stop: root" "$(tail -n 1 <<<"$out")"

run --table "$A" --stack "$tmp/cross.stack" --stack-base $SB --reg pc=0x40004
expect "pc outside every table" "#0 0x00040004
stop: no-table" "$out"

run --table "$A" --stack "$tmp/lmtr.stack" --stack-base $SB --reg pc=0x10104 \
	--max-depth 2
expect "max depth" "#0 0x00010104
#1 0x00010211
stop: max-depth" "$out"

run --table "$A" --stack "$tmp/lmtr.stack" --stack-base $SB --reg pc=0x10104 \
	--max-depth 0
expect "max depth 0" "stop: max-depth" "$out"

# Z returns to the first byte of X (after N's noreturn call)
run --table "$A" --stack "$tmp/n.stack" --stack-base $SB --reg pc=0x10700 \
	--reg lr=0x10601
expect "call-site lookup goes through N" "#0 0x00010700
#1 0x00010601
#2 0x00010405
stop: root" "$out"
run --table "$A" --stack "$tmp/n.stack" --stack-base $SB --reg pc=0x10700 \
	--reg lr=0x10601 --chrome-compat
expect "--chrome-compat lands in the refuse filler" "#0 0x00010700
#1 0x00010601
stop: refused" "$out"

run --table "$A" --stack "$tmp/n.stack" --stack-base $SB --reg pc=0x10702 \
	--reg LR=0x10702
expect "leaf no progress" "#0 0x00010702
stop: no-progress" "$out"

run --table "$A" --stack "$tmp/n.stack" --stack-base $SB --reg pc=0x10800 \
	--reg lr=0x10405
expect "frame sp at 4 mod 8 goes on" "#0 0x00010800
#1 0x00010405
stop: root" "$out"
# Chrome's reader asks for an 8-aligned sp after every frame
run --table "$A" --stack "$tmp/n.stack" --stack-base $SB --reg pc=0x10800 \
	--reg lr=0x10405 --chrome-compat
expect "--chrome-compat: frame sp at 4 mod 8 stops" "#0 0x00010800
stop: bad-sp" "$out"

# the stack window ends before M's saved registers
head -c 36 "$tmp/lmtr.stack" >"$tmp/short.stack"
run --table "$A" --stack "$tmp/short.stack" --stack-base $SB --reg pc=0x10104
expect "pop past the window's end" "#0 0x00010104
#1 0x00010211
stop: bad-sp" "$out"

run --table "$tmp/a.v2" --stack "$tmp/n.stack" --stack-base $SB --reg pc=0x702 \
	--reg lr=0
expect "TEXT_START defaults to 0; lr 0 is the root" "#0 0x00000702
stop: root" "$out"

# r7 (fp in Thumb code) as the frame pointer of T, set through its alias
run --table "$A" --stack "$tmp/lmtr.stack" --stack-base $SB --reg pc=0x10310 \
	--reg sp=0x7eff0028 --reg r7=0x7eff0030
expect "r7 frame pointer" "#0 0x00010310
#1 0x00010405
stop: root" "$out"
run --table "$A" --stack "$tmp/lmtr.stack" --stack-base $SB --reg pc=0x10010
expect "refused" "#0 0x00010010
stop: refused" "$out"
run --table "$A" --stack "$tmp/lmtr.stack" --stack-base $SB --reg pc=0x10310 \
	--reg sp=0x7eff0028 --reg fp=0x7eff0030 --reg ip=1 --reg r15=0x10310
expect "fp and ip aliases, r15" "#0 0x00010310
stop: bad-sp" "$out"

# every kind of bad input: a message and status 2
expect_error "no arguments" "required" 
expect_error "missing --stack-base" "required" --table "$A" --stack "$tmp/n.stack" --reg pc=0
expect_error "missing pc" "pc=VALUE is required" --table "$A" --stack "$tmp/n.stack" --stack-base 0
expect_error "unknown option" "unknown argument '--frobnicate'" --frobnicate
expect_error "option without a value" "--reg needs a value" --table "$A" --reg

# JIT code of V8's kind at 0x30000, after table A's page: two frames
# (fp chain from r11), then an entry frame (markers 2, 2 below its fp,
# r4-r10 at fp + 72) returning into A's outermost function
python3 - "$tmp/jit.stack" $SB <<'PY'
import struct, sys
sb = int(sys.argv[2], 0)
w = {8: sb + 24, 12: 0x30104, 24: sb + 48, 28: 0x30208,
     40: 2, 44: 2, 48: 0x1111, 52: 0x10405}
w.update({120 + 4 * i: 0x404 + i for i in range(7)})
with open(sys.argv[1], "wb") as f:
    f.write(b"".join(struct.pack("<I", w.get(o, 0)) for o in range(0, 160, 4)))
PY
run --table "$A" --jit v8-arm:0x30000-0x40000 --stack "$tmp/jit.stack" \
	--stack-base $SB --reg pc=0x30010 --reg fp=$((SB + 8))
expect "--jit: V8 frames to the table's root" "#0 0x00030010
#1 0x00030104
#2 0x00030208
#3 0x00010405
stop: root" "$out"
run --table "$A" --stack "$tmp/jit.stack" --stack-base $SB --reg pc=0x30010 \
	--reg fp=$((SB + 8))
expect "without --jit: no table there" "#0 0x00030010
stop: no-table" "$out"
expect_error "--jit: unknown kind" "unknown frame kind" --table "$A" \
	--jit art:0x30000-0x40000 --stack "$tmp/jit.stack" --stack-base $SB --reg pc=0
expect_error "--jit: not a range" "START-END" --table "$A" \
	--jit v8-arm:0x40000-0x30000 --stack "$tmp/jit.stack" --stack-base $SB --reg pc=0
expect_error "--jit: overlaps a table" "overlap" --table "$A" \
	--jit v8-arm:0x20000-0x40000 --stack "$tmp/jit.stack" --stack-base $SB --reg pc=0
expect_error "bad number" "wants a number, not '0x1g'" --table "$A" --stack "$tmp/n.stack" --stack-base 0x1g --reg pc=0
expect_error "negative number" "wants a number" --table "$A" --stack "$tmp/n.stack" --stack-base -4 --reg pc=0
expect_error "number over 32 bits" "wants a number" --table "$A" --stack "$tmp/n.stack" --stack-base 0x100000000 --reg pc=0
expect_error "unknown register" "unknown register 'r16'" --table "$A" --stack "$tmp/n.stack" --stack-base 0 --reg r16=1 --reg pc=0
expect_error "register without =" "NAME=VALUE" --table "$A" --stack "$tmp/n.stack" --stack-base 0 --reg pc
expect_error "bad register value" "bad value 'x' for sp" --table "$A" --stack "$tmp/n.stack" --stack-base 0 --reg sp=x --reg pc=0
expect_error "missing table file" "nope.v2: No such file" --table "$tmp/nope.v2" --stack "$tmp/n.stack" --stack-base 0 --reg pc=0
expect_error "missing stack file" "nope.stack: No such file" --table "$A" --stack "$tmp/nope.stack" --stack-base 0 --reg pc=0
expect_error "invalid table: spare opcode, with offset" \
	"spare.v2: invalid v2 table: spare or reserved unwind opcode \(blob offset 0x2a\)" \
	--table "$tmp/spare.v2" --stack "$tmp/n.stack" --stack-base 0 --reg pc=0
expect_error "invalid table: short blob" "smaller than the 32-byte header \(blob offset 0x14\)" \
	--table "$tmp/short.v2" --stack "$tmp/n.stack" --stack-base 0 --reg pc=0
: >"$tmp/empty.v2"
expect_error "invalid table: empty file" "invalid v2 table" \
	--table "$tmp/empty.v2" --stack "$tmp/n.stack" --stack-base 0 --reg pc=0
expect_error "overlapping tables" "overlap" --table "$A" --table "$tmp/a.v2@0x10100" \
	--stack "$tmp/n.stack" --stack-base 0 --reg pc=0
expect_error "stack window past 4 GiB" "passes 4 GiB" --table "$A" --stack "$tmp/n.stack" \
	--stack-base 0xffffff00 --reg pc=0
expect_error "--stack twice" "given twice" --table "$A" --stack "$tmp/n.stack" --stack "$tmp/n.stack"
expect_error "max depth too large" "above" --table "$A" --stack "$tmp/n.stack" --stack-base 0 \
	--reg pc=0 --max-depth 100000000

# A .uwt container knows where its .text was linked: no @TEXT_START needed,
# and it unwinds exactly as the raw blob placed there does.
sym=$(dirname "$0")/../data/table/worked.sym
"$UWPROF" table --breakpad "$sym" --text-start 0x1000 -o "$tmp/w.uwt" >/dev/null &&
"$UWPROF" table --breakpad "$sym" --text-start 0x1000 --raw -o "$tmp/w.v2" >/dev/null
printf '\x04\0\0\0\x05\0\0\0\x07\0\0\0\0\0\0\0' >"$tmp/w.stack"
w_args=(--stack "$tmp/w.stack" --stack-base 0x8000 --reg pc=0x1003)
expect "container: link address by default" "#0 0x00001003
stop: root" "$("$UWPROF" unwind --table "$tmp/w.uwt" "${w_args[@]}" 2>&1)"
expect "container and raw blob agree" \
	"$("$UWPROF" unwind --table "$tmp/w.v2@0x1000" "${w_args[@]}" 2>&1)" \
	"$("$UWPROF" unwind --table "$tmp/w.uwt" "${w_args[@]}" 2>&1)"
# at 0, pc 0x1003 falls in the refuse filler before the first function
expect "raw blob without @TEXT_START is placed at 0" "stop: refused" \
	"$("$UWPROF" unwind --table "$tmp/w.v2" "${w_args[@]}" 2>&1 | tail -n 1)"

# garbage tables must never crash the command
crashed=0
for i in $(seq 1 40); do
	head -c $((i * 7)) /dev/urandom >"$tmp/junk.v2"
	"$UWPROF" unwind --table "$tmp/junk.v2" --stack "$tmp/n.stack" \
		--stack-base $SB --reg pc=$((i * 64)) >/dev/null 2>&1
	r=$?
	[ "$r" -eq 0 ] || [ "$r" -eq 2 ] || crashed=$((crashed + 1))
done
expect "random tables: exit 0 or 2, never a crash" 0 "$crashed"

finish
