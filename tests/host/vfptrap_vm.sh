#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Samples taken while the kernel handles a trapped VFP instruction: on
# 32-bit ARM the first VFP instruction after a context switch traps
# (VFP is off), and until the kernel has enabled VFP and set the pc back
# to run it again, the thread's saved pc is the instruction AFTER it,
# which has not run.  A vpush or vpop there moved no sp, so the row at
# that pc reads the frame 8 bytes off.  tests/data/vfptrap makes it
# certain (two threads that yield to each other and push or pop d8 right
# after) and puts 0 where the rows would read the return address: a walk
# that takes the row there ends after one frame as if at the outermost
# frame (stop root), which this test counts as wrong.
#
# The module refuses a sample taken in the kernel whose pc follows a VFP
# load or store multiple that writes sp back (sampler.c): nothing tells
# the window from an interrupt after the instruction ran.  Run it alone:
#   make test-vm-scripts VM_SCRIPTS=tests/host/vfptrap_vm.sh
# Boots one VM (about 30 s).
set -u
. "$(dirname "$0")/lib.sh"
th_init
src=$top/tests/data/vfptrap
libdir=$BUILD/arm/root/lib/arm-linux-gnueabihf
dbg=$BUILD/arm/dbg/usr/lib/debug
CC=${CC_ARM:-arm-linux-gnueabihf-gcc}

need_vm "VFP traps in the VM" "make setup module uwprof-arm" "$arm_uwprof" "$libdir/libc.so.6" "$dbg"
need_checker

mkdir -p "$tmp/data/tables"
prog=$tmp/data/vfptrap
# -static-libgcc: the .fnstart entries name libgcc's personality routine,
# and the VM root has no libgcc_s.so.1
"$CC" -O2 -mthumb -static-libgcc -pthread -o "$prog" "$src/vfptrap.c" "$src/vfptrap.S" ||
	{ fail "build $prog"; finish; exit 1; }
"$UWPROF" table "$prog" --build-id-dir "$tmp/data/tables" >/dev/null || fail "uwprof table $prog"
for f in "$libdir/libc.so.6" "$libdir/ld-linux-armhf.so.3"; do
	"$UWPROF" table "$f" --build-id-dir "$tmp/data/tables" --debug-dir "$dbg" \
		--prologue-analysis >/dev/null || fail "uwprof table $f"
done

cat >"$tmp/run.sh" <<'VM'
#!/bin/sh
insmod /uwprof.ko || exit 1
uwprof record -F 4000 --tables /data/tables -o /out/vfptrap.data -- \
	/data/vfptrap 8 >/out/rec.log 2>&1; echo $? >/out/rec.rc
VM
chmod +x "$tmp/run.sh"
run_vm 300 --add "$arm_uwprof:/usr/bin/uwprof" --add "$tmp/data:/data"
expect "uwprof record exits 0" 0 "$(cat "$tmp/out/rec.rc" 2>/dev/null)"

# Per sampled pc after a trapped instruction (vf_after, vg_after), taken
# in the kernel: how many, and how many of them the module ended as
# complete with one frame.
counts=$(/usr/bin/python3 - "$top/bench/perf" "$tmp/out/vfptrap.data" "$prog" <<'PY'
import subprocess, sys
sys.path.insert(0, sys.argv[1])
import analyze
syms = {}
for line in subprocess.run(["nm", sys.argv[3]], capture_output=True,
                           text=True, check=True).stdout.splitlines():
    f = line.split()
    if len(f) == 3:
        syms[f[2]] = int(f[0], 16) & ~1
d = analyze.load_uwdata(sys.argv[2])
for name in ("vf_after", "vg_after"):
    n = bad = 0
    for s in d["samples"]:
        fr = analyze.uw_frames(s, d["procs"])
        if not fr or not fr[0][0] or not fr[0][0].endswith("/vfptrap"):
            continue
        if fr[0][1] & ~1 != syms[name] or not s[2] & 1:   # UWPROF_RF_KERNEL
            continue
        n += 1
        if analyze.complete_stop(s[1]) and len(fr) == 1:
            bad += 1
    print(name, n, bad)
PY
) || { fail "reading $tmp/out/vfptrap.data"; finish; exit 1; }
while read -r name n bad; do
	if [ "$n" = 0 ] && [[ ${KERNEL:-armmp-6.1} == arm64-* ]]; then
		skip "$name: no VFP trap to sample on an arm64 kernel (it does not trap a 32-bit task's VFP instructions)"
	elif [ "$n" = 0 ]; then
		skip "$name: no sample taken in the kernel there (the trap's window went unsampled)"
	elif [ "$bad" = 0 ]; then
		ok "$name: none of $n samples taken in the trap ends complete after one frame"
	else
		fail "$name: $bad of $n samples taken in the trap end complete (root) after one frame"
	fi
done <<<"$counts"
finish
