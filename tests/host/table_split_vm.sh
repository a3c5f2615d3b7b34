#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Split tables in the VM: the fixture, the C library and the dynamic
# loader tabled with a lowered FOT limit (--test-fot-limit, so that small
# files need several parts, as chromium does at 65,535), then "uwprof
# record" on the fixture run two ways: as the command (record uploads
# every part and attaches each to its range itself) and as a shell's
# child (the module attaches every part by build-id).  Both must unwind as
# record_vm.sh's unsplit tables do.  Boots one VM (about 30 s).
set -u
. "$(dirname "$0")/lib.sh"
th_init
fixture=$top/tests/data/report/fixture
libdir=$BUILD/arm/root/lib/arm-linux-gnueabihf
dbg=$BUILD/arm/dbg/usr/lib/debug
# record_vm.sh's bar for its unsplit tables (fully unwound, tenths of a
# per cent): split tables must unwind as well.
MIN=${SPLIT_MIN:-975}

need_vm "split tables in the VM" "make setup module uwprof-arm" "$arm_uwprof" "$libdir/libc.so.6" "$dbg"

# table FILE LIMIT [ARGS...]: FILE's table split at LIMIT; it must have parts.
table() {
	local f=$1 limit=$2 parts
	shift 2
	if ! "$UWPROF" table "$f" --build-id-dir "$tmp/tables" \
		--test-fot-limit "$limit" --stats "$@" >"$tmp/stats"; then
		fail "uwprof table $f"
		return
	fi
	parts=$(sed -n 's/^parts: \([0-9]*\) tables.*/\1/p' "$tmp/stats")
	if [ "${parts:-1}" -gt 1 ]; then
		ok "$(basename "$f"): $parts parts"
	else
		fail "$(basename "$f") was not split at $limit"
	fi
}
mkdir -p "$tmp/tables"
table "$fixture" 8
for f in "$libdir/libc.so.6" "$libdir/ld-linux-armhf.so.3"; do
	table "$f" 2048 --debug-dir "$dbg" --prologue-analysis
done

cat >"$tmp/run.sh" <<'EOF'
#!/bin/sh
insmod /uwprof.ko || exit 1
# --no-auto-tables: the shell (busybox) has no table here, and none is
# made on the device (a minute of CPU in the VM); its samples are not judged
R="uwprof record -F 500 --no-auto-tables --tables /data/tables"
$R -o /out/cmd.data -- /data/fixture 800 >/out/cmd.log 2>&1; echo $? >/out/cmd.rc
$R -o /out/child.data -- sh -c '/data/fixture 800; :' >/out/child.log 2>&1; echo $? >/out/child.rc
exit 0
EOF
chmod +x "$tmp/run.sh"
run_vm 300 --add "$arm_uwprof:/usr/bin/uwprof" --add "$fixture:/data/fixture" \
	--add "$tmp/tables:/data/tables"

# judge NAME: the fixture's samples (from its exec on), fully unwound
# (ROOT or NORETURN) in tenths of a per cent, and how many there were.
judge() {
	local name=$1 n permille
	expect "$name: record exits 0" 0 "$(cat "$tmp/out/$name.rc" 2>/dev/null)"
	read -r n permille < <(HERE=$here python3 -c '
import os, sys
sys.path.insert(0, os.environ["HERE"])
import uwdata
recs = uwdata.records(sys.argv[1])
since = {d["pid"]: d["time"] for k, d in recs
         if k == "process" and d["exe"].endswith("/fixture")}
n = full = 0
for k, d in recs:
    if k == "sample" and d["pid"] in since and d["time"] >= since[d["pid"]]:
        n += 1
        full += d["stop"] in (0, 8)
print(n, 1000 * full // max(n, 1))' "$tmp/out/$name.data")
	local pct="$((${permille:-0} / 10)).$((${permille:-0} % 10))%"
	if [ "${n:-0}" -ge 200 ] && [ "${permille:-0}" -ge "$MIN" ]; then
		ok "$name: $n samples of the fixture, $pct fully unwound with split tables"
	else
		fail "$name: ${n:-no} samples of the fixture, $pct fully unwound, below $((MIN / 10)).$((MIN % 10))%"
		sed 's/^/#   /' "$tmp/out/$name.log"
	fi
}
judge cmd
judge child
finish
