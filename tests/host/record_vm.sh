#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# End to end: tables made on the host, "uwprof record" (the static armhf
# build) in the VM on tests/data/report/fixture started three ways (as a
# command, through an exec, by -p), then "uwprof report" on the host on
# the data files that come back.  Boots one VM (about 30 s).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
top=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$top/build}
UWPROF=${UWPROF:-$BUILD/host/uwprof}
arm_uwprof=$BUILD/arm/uwprof
fixture=$top/tests/data/report/fixture
libdir=$BUILD/arm/root/lib/arm-linux-gnueabihf
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# make check runs the host tests before it builds the module.
[ -e "$top/uwprof.ko" ] || [ ! -e "$BUILD/kernel/vmlinuz" ] ||
	make -C "$top" --no-print-directory module >/dev/null 2>&1
for need in "$BUILD/kernel/vmlinuz" "$top/uwprof.ko" "$arm_uwprof" "$libdir/libc.so.6"; do
	if [ ! -e "$need" ]; then
		skip "record in the VM: no $need (make setup module uwprof-arm)"
		finish
		exit 0
	fi
done

mkdir -p "$tmp/tables"
for f in "$fixture" "$libdir/libc.so.6" "$libdir/ld-linux-armhf.so.3"; do
	"$UWPROF" table "$f" --build-id-dir "$tmp/tables" >/dev/null ||
		fail "uwprof table $f"
done

# In the VM: each run's exit status and stderr go to /out.
cat >"$tmp/run.sh" <<'EOF'
#!/bin/sh
insmod /uwprof.ko || exit 1
cd /out
R="uwprof record -F 500 --tables /data/tables"
$R -o /out/cmd.data -- /data/fixture 800 >/out/cmd.log 2>&1; echo $? >/out/cmd.rc
$R -o /out/exec.data -- sh -c 'exec /data/fixture 200' >/out/exec.log 2>&1; echo $? >/out/exec.rc
/data/fixture 100000 & pid=$!
sleep 1
$R -d 1 -o /out/pid.data -p $pid >/out/pid.log 2>&1; echo $? >/out/pid.rc
kill $pid
$R -o /out/dead.data -p 999999 >/out/dead.log 2>&1; echo $? >/out/dead.rc
rmmod uwprof
$R -o /out/nomod.data -- true >/out/nomod.log 2>&1; echo $? >/out/nomod.rc
exit 0
EOF
chmod +x "$tmp/run.sh"
if ! "$top/scripts/vm.sh" --timeout 300 --out "$tmp/out" \
	--add "$arm_uwprof:/usr/bin/uwprof" --add "$fixture:/data/fixture" \
	--add "$tmp/tables:/data/tables" --add "$tmp/run.sh:/run.sh" -- /run.sh \
	>"$tmp/vm.log" 2>&1; then
	fail "the VM run failed"
	tail -n 20 "$tmp/vm.log" | sed 's/^/#   /'
	finish
	exit 1
fi
out=$tmp/out

rep() { "$UWPROF" report -q --symfs "$top/tests/data/report" "$@"; }

# record -- CMD: exit 0, a summary, a mostly fully unwound profile.
expect "record -- CMD exits 0" 0 "$(cat "$out/cmd.rc" 2>/dev/null)"
if grep -q '^uwprof record: fully unwound: ' "$out/cmd.log"; then
	ok "record prints the share fully unwound"
else
	fail "no summary: $(cat "$out/cmd.log")"
fi
rep "$out/cmd.data" >"$tmp/cmd.txt"
pct=$(sed -n 's/^# fully unwound: \([0-9]*\)\..*/\1/p' "$tmp/cmd.txt")
n=$(sed -n 's/^# \([0-9]*\) samples of.*/\1/p' "$tmp/cmd.txt")
if [ "${n:-0}" -ge 200 ] && [ "${pct:-0}" -ge 90 ]; then
	ok "report: $n samples, $pct% fully unwound"
else
	fail "report: ${n:-no} samples, ${pct:-?}% fully unwound"
	sed 's/^/#   /' "$out/cmd.log" "$tmp/cmd.txt"
fi
if rep -f folded "$out/cmd.data" | grep -q '^_start;.*main;run;work_a;spin '; then
	ok "folded: _start ... main;run;work_a;spin"
else
	fail "folded lacks the fixture's chain"
fi
spin=$(awk '/by self/ {on = 1; next} on && $1 ~ /%$/ {print $5; exit}' "$tmp/cmd.txt")
expect "spin is the top function" spin "$spin"

# An exec: the command is sh, which becomes the fixture.
expect "record -- sh -c 'exec ...' exits 0" 0 "$(cat "$out/exec.rc" 2>/dev/null)"
if rep -f folded "$out/exec.data" | grep -q 'main;run;work_b'; then
	ok "tables attached again after exec"
else
	fail "no fixture stacks after exec: $(cat "$out/exec.log")"
fi

# -p: a running process, for -d 1.
expect "record -p exits 0" 0 "$(cat "$out/pid.rc" 2>/dev/null)"
if rep -f folded "$out/pid.data" | grep -q 'main;run;work_'; then
	ok "record -p samples the running process"
else
	fail "record -p: $(cat "$out/pid.log")"
fi

# Errors.
expect "record -p DEADPID exits 2" 2 "$(cat "$out/dead.rc" 2>/dev/null)"
if grep -q 'no process 999999' "$out/dead.log"; then ok "dead pid named"; else
	fail "dead pid: $(cat "$out/dead.log")"; fi
expect "record without the module exits 1" 1 "$(cat "$out/nomod.rc" 2>/dev/null)"
if grep -q 'insmod uwprof.ko' "$out/nomod.log"; then ok "no module: says to insmod"; else
	fail "no module: $(cat "$out/nomod.log")"; fi
finish
