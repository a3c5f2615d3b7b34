#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# End to end: tables made on the host, "uwprof record" (the static armhf
# build) in the VM on tests/data/report/fixture started three ways (as a
# command, through an exec, by -p and -t; and built by clang with lld),
# then "uwprof report" on the host on the data files that come back; and
# the errors: a dead pid, a 64-bit process (arm64 kernels), no module.
# Boots one VM (about 30 s).
set -u
. "$(dirname "$0")/lib.sh"
th_init
spin64=$BUILD/arm/selftests/spin64	# a 64-bit program (selftests/spin64.c)
spin64_add=()
[ ! -x "$spin64" ] || spin64_add=(--add "$spin64:/data/spin64")
fixture=$top/tests/data/report/fixture
libdir=$BUILD/arm/root/lib/arm-linux-gnueabihf
dbg=$BUILD/arm/dbg/usr/lib/debug
# "record -- CMD", fully unwound at least, in tenths of a per cent, over
# every sample, ld.so's start-up included: eleven runs on armmp-6.1 gave
# 98.8% to 100.0% of 356-552 samples (17-34 in ld.so), the misses a few
# samples a run (bad-sp, a libc frame at start-up).  97.5% allows twice
# the worst run's misses; below it a table, the ld.so start-up or the
# side-band's timing broke.
CMD_MIN=${CMD_MIN:-975}

need_vm "record in the VM" "make setup module uwprof-arm" "$arm_uwprof" "$libdir/libc.so.6" "$dbg"

# The fixture linked by lld, whose executable segment shares a file page
# with the read-only one: the address model's hard case.
lld_fixture=$tmp/fixture-lld
build_lld_fixture "$lld_fixture"

# The C library and the dynamic loader with their libc6-dbg debug files,
# whose .debug_frame their own .ARM.exidx lacks (ld.so's covers next to
# nothing), as make demo and make bench make them.
mkdir -p "$tmp/tables"
for f in "$fixture" "$lld_fixture"; do
	"$UWPROF" table "$f" --build-id-dir "$tmp/tables" >/dev/null ||
		fail "uwprof table $f"
done
for f in "$libdir/libc.so.6" "$libdir/ld-linux-armhf.so.3"; do
	"$UWPROF" table "$f" --build-id-dir "$tmp/tables" --debug-dir "$dbg" \
		--prologue-analysis >/dev/null || fail "uwprof table $f"
done

# spin, the fixture's hottest function, at link addresses (for
# --jit-range): START-END, the Thumb bit cleared
read -r spin_at spin_size < <(nm -S "$fixture" | awk '$4 == "spin" { print $1, $2 }')
spin_lo=$(( 0x$spin_at & ~1 ))
spin_hi=$(( spin_lo + 0x$spin_size ))
printf '0x%x-0x%x\n' "$spin_lo" "$spin_hi" >"$tmp/spin.range"

# In the VM: each run's exit status and stderr go to /out.
cat >"$tmp/run.sh" <<'EOF'
#!/bin/sh
insmod /uwprof.ko || exit 1
cd /out
R="uwprof record -F 500 --tables /data/tables"
$R -o /out/cmd.data -- /data/fixture 800 >/out/cmd.log 2>&1; echo $? >/out/cmd.rc
# report in the device binary, on the device's own files
uwprof report -q -f folded /out/cmd.data >/out/cmd.dev-folded 2>/out/cmd.dev-err
uwprof report -q /out/cmd.data >/out/cmd.dev-text 2>>/out/cmd.dev-err
$R -o /out/exec.data -- sh -c 'exec /data/fixture 200' >/out/exec.log 2>&1; echo $? >/out/exec.rc
# --jit-range by path: spin marked as JIT code of the v8-arm kind; and two
# that mark nothing: a file nothing maps, a range outside the code
$R --jit v8-arm --jit-range "/data/fixture:$(cat /data/spin.range)" \
	--jit-range /no/such/lib.so:0x1000-0x2000 \
	--jit-range fixture:0x7ff00000-0x7ff00010 \
	-o /out/jitpath.data -- /data/fixture 200 >/out/jitpath.log 2>&1; echo $? >/out/jitpath.rc
/data/fixture 100000 & pid=$!
sleep 1
$R -d 1 -o /out/pid.data -p $pid >/out/pid.log 2>&1; echo $? >/out/pid.rc
$R -q -d 1 -o /out/tid.data -t $pid >/out/tid.log 2>&1; echo $? >/out/tid.rc
kill $pid
$R -o /out/lld.data -- /data/fixture-lld 300 >/out/lld.log 2>&1; echo $? >/out/lld.rc
$R -o /out/dead.data -p 999999 >/out/dead.log 2>&1; echo $? >/out/dead.rc
# The command's start: an exec that fails; a child killed before its exec
# (found as record's child as soon as it is forked: record still sets up,
# uploads tables, and only then lets it exec); record told to stop by
# SIGINT while the command runs.
$R -o /out/noexec.data -- /data/no-such-program >/out/noexec.log 2>&1; echo $? >/out/noexec.rc
$R -o /out/kill.data -- /data/fixture 200 >/out/kill.log 2>&1 & rp=$!
c=
while [ -z "$c" ] && [ -d /proc/$rp ]; do
	read -r c _ </proc/$rp/task/$rp/children 2>/dev/null
done
[ -z "$c" ] || kill -KILL $c
wait $rp; echo $? >/out/kill.rc
# record killed (SIGKILL) while its command is paused for the tables
# being made (no --tables, a fresh cache): record's guard lets the command
# go on, and it ends by itself.
state() { sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' /proc/$1/status 2>/dev/null; }
mkdir -p /tmp/none
uwprof record -F 500 --tables /tmp/none --table-cache /tmp/kcache \
	-o /out/rkill.data -- /data/fixture 300 >/out/rkill.log 2>&1 & rp=$!
c= st= t0=$(date +%s)
while [ "$st" != T ] && [ -d /proc/$rp ] && [ $(($(date +%s) - t0)) -lt 60 ]; do
	[ -n "$c" ] || read -r c _ </proc/$rp/task/$rp/children 2>/dev/null
	[ -z "$c" ] || st=$(state $c)
done
echo "${st:-none}" >/out/rkill.held
kill -KILL $rp
wait $rp
t0=$(date +%s)
while [ -n "$c" ] && [ -d /proc/$c ] && [ "$(state $c)" != Z ] &&
	[ $(($(date +%s) - t0)) -lt 60 ]; do
	sleep 1
done
if [ -n "$c" ] && [ -d /proc/$c ] && [ "$(state $c)" != Z ]; then
	echo "still there, state $(state $c)" >/out/rkill.after
else
	echo ended >/out/rkill.after
fi
$R -o /out/int.data -- /data/fixture 100000 >/out/int.log 2>&1 & rp=$!
sleep 2
kill -INT $rp
wait $rp; echo $? >/out/int.rc
uname -m >/out/machine
/data/spin64 2>/out/spin64.err & pid64=$!
sleep 1
if grep -q spin64 /proc/$pid64/maps 2>/dev/null; then	# runs on arm64 kernels only
	$R -o /out/pid64.data -p $pid64 >/out/pid64.log 2>&1; echo $? >/out/pid64.rc
	kill $pid64
fi
# Tracing refused (Yama's ptrace_scope 3, for good: last): record warns
# and samples the command from before its exec, as without tracing.
if echo 3 >/proc/sys/kernel/yama/ptrace_scope 2>/dev/null; then
	$R -o /out/notrace.data -- /data/fixture 200 >/out/notrace.log 2>&1; echo $? >/out/notrace.rc
fi
rmmod uwprof
$R -o /out/nomod.data -- true >/out/nomod.log 2>&1; echo $? >/out/nomod.rc
exit 0
EOF
chmod +x "$tmp/run.sh"
run_vm 300 --add "$arm_uwprof:/usr/bin/uwprof" --add "$fixture:/data/fixture" \
	--add "$tmp/spin.range:/data/spin.range" \
	--add "$lld_fixture:/data/fixture-lld" ${spin64_add[@]+"${spin64_add[@]}"} \
	--add "$tmp/tables:/data/tables"
out=$tmp/out

rep() { "$UWPROF" report -q --symfs "$top/tests/data/report" "$@"; }

# record -- CMD: exit 0, a summary, a mostly fully unwound profile.
expect "record -- CMD exits 0" 0 "$(cat "$out/cmd.rc" 2>/dev/null)"
if grep -q '^uwprof record: fully unwound: ' "$out/cmd.log"; then
	ok "record prints the share fully unwound"
else
	fail "no summary: $(cat "$out/cmd.log")"
fi
# The module validated the tables for the first recording of the boot
# and kept them: the next recording's uploads of the same tables say so.
if ! grep -q 'kept by the module' "$out/cmd.log" &&
   grep -q '^uwprof record: [1-9][0-9]* of [1-9][0-9]* table uploads were validated for an earlier recording' "$out/exec.log"; then
	ok "the second recording's tables were kept from the first ($(sed -n 's/^uwprof record: \([0-9]* of [0-9]*\) table uploads.*/\1/p' "$out/exec.log"))"
else
	fail "kept tables: first: $(grep kept "$out/cmd.log"); second: $(grep -c kept "$out/exec.log")"
fi
rep "$out/cmd.data" >"$tmp/cmd.txt"
n=$(sed -n 's/^# \([0-9]*\) samples of.*/\1/p' "$tmp/cmd.txt")
# Every sample judged, the dynamic loader's too: the side-band follows the
# command from its exec and the tables cover ld.so, so its start-up unwinds
# as the program does (a sample counts as fully unwound when the module
# said ROOT or NORETURN).  The share is in tenths of a per cent.
read -r n_all permille ldso < <(HERE=$here python3 -c '
import os, sys
sys.path.insert(0, os.environ["HERE"])
import uwdata
recs = uwdata.records(sys.argv[1])
ld = [(d["start"], d["end"]) for k, d in recs
      if k == "mapping" and "/ld-linux" in d["path"]]
n = full = inld = 0
for k, d in recs:
    if k != "sample":
        continue
    pc = d["frames"][0] if d["frames"] else 0
    inld += any(a <= pc < b for a, b in ld)
    n += 1
    full += d["stop"] in (0, 8)
print(n, 1000 * full // max(n, 1), inld)' "$out/cmd.data")
pct="$((${permille:-0} / 10)).$((${permille:-0} % 10))%"
if [ "${n_all:-0}" -ge 200 ] && [ "${permille:-0}" -ge "$CMD_MIN" ]; then
	ok "report: $n_all samples, $pct fully unwound ($ldso of them in ld.so), at least $((CMD_MIN / 10)).$((CMD_MIN % 10))%"
else
	fail "report: ${n_all:-no} samples, $pct fully unwound (${ldso:-?} in ld.so), below $((CMD_MIN / 10)).$((CMD_MIN % 10))%"
	sed 's/^/#   /' "$out/cmd.log" "$tmp/cmd.txt"
fi
if rep -f folded "$out/cmd.data" | grep -q '^_start;.*main;run;work_a;spin '; then
	ok "folded: _start ... main;run;work_a;spin"
else
	fail "folded lacks the fixture's chain"
fi
spin=$(awk '/by self/ {on = 1; next} on && $1 ~ /%$/ {print $5; exit}' "$tmp/cmd.txt")
expect "spin is the top function" spin "$spin"
# The device binary's report: the fixture's stacks (from main on) as the
# host's report gives them with the same C library (the armhf root's: a
# sample in strtol called from main is named there as on the device).
from_main() { sed -n 's/^.*;\(main;.*\) \([0-9]*\)$/\1 \2/p' |
	awk '{n[$1] += $2} END {for (s in n) print s, n[s]}' | sort; }
dev=$(from_main <"$out/cmd.dev-folded")
host_folded() { rep --symfs "$BUILD/arm/root" -f folded "$out/cmd.data" | from_main; }
if [ -n "$dev" ] && [ "$dev" = "$(host_folded)" ] &&
	grep -q '^# fully unwound: ' "$out/cmd.dev-text"; then
	ok "report on the device: text, and folded as the host's ($(echo "$dev" | wc -l) stacks from main)"
else
	fail "report on the device differs: $(head -c 300 "$out/cmd.dev-err")"
	diff <(echo "$dev") <(host_folded) | head -8 | sed 's/^/#   /'
fi

# No sample before the command's exec: the recorder's child runs uwprof
# (static, mapped nowhere in the file) until its execve() of the command
# succeeds, and is not sampled until then (perf's enable-on-exec).  Every
# sample's pc must lie in a mapping the file gives its process (the
# command's image, its libraries, the vDSO), none of them the recorder's.
# Before enable-on-exec each run had 2 to 6 samples of the child inside
# execve() at [unknown] addresses of /usr/bin/uwprof.
outside_image() {
	HERE=$here python3 -c '
import os, sys
sys.path.insert(0, os.environ["HERE"])
import uwdata
recs = uwdata.records(sys.argv[1])
maps, procs = {}, {}
for k, d in recs:
    if k == "mapping":
        maps.setdefault(d["pid"], []).append((d["start"], d["end"], d["path"]))
    elif k == "process":
        procs.setdefault(d["pid"], []).append(d["exe"])
n = bad = 0
shown = []
for k, d in recs:
    if k != "sample":
        continue
    n += 1
    pc = d["frames"][0] if d["frames"] else 0
    hit = [p for a, b, p in maps.get(d["pid"], []) if a <= pc < b]
    if not hit or any(p.endswith("/uwprof") for p in hit):
        bad += 1
        if len(shown) < 4:
            shown.append("pid %d pc %#x in %s (process %s)" % (d["pid"], pc,
                         hit[0] if hit else "no mapping",
                         "/".join(procs.get(d["pid"], ["?"]))))
print(n, bad, "; ".join(shown))' "$1"
}
for run in cmd exec lld; do
	read -r n_s n_out what < <(outside_image "$out/$run.data")
	if [ "${n_s:-0}" -gt 0 ] && [ "${n_out:-1}" -eq 0 ]; then
		ok "$run: none of $n_s samples outside the command's image and libraries"
	else
		fail "$run: ${n_out:-?} of ${n_s:-no} samples outside the command's image and libraries: $what"
	fi
done

# The command's start.
expect "record -- NO-SUCH-PROGRAM exits 127" 127 "$(cat "$out/noexec.rc" 2>/dev/null)"
if grep -q "cannot run '/data/no-such-program': No such file or directory" "$out/noexec.log"; then
	ok "an exec that fails is named with its error"
else
	fail "exec failure: $(cat "$out/noexec.log")"
fi
expect "record -- CMD, CMD killed by SIGKILL: exits 137" 137 "$(cat "$out/kill.rc" 2>/dev/null)"
if grep -q "'/data/fixture' was killed by signal 9 before it ran" "$out/kill.log"; then
	ok "a command killed before its exec: said so"
elif grep -q "the command was killed by signal 9" "$out/kill.log"; then
	ok "a command killed (after its exec, this time: the test's kill came late)"
else
	fail "a command killed before its exec: $(cat "$out/kill.log")"
fi
if [ "$(cat "$out/rkill.held" 2>/dev/null)" = T ]; then
	expect "record killed while its command waits for tables: the command goes on and ends" \
		ended "$(cat "$out/rkill.after" 2>/dev/null)"
else
	fail "the command was never seen paused for its tables (state $(cat "$out/rkill.held" 2>/dev/null)): $(tail -n 3 "$out/rkill.log" 2>/dev/null)"
fi
expect "record -- CMD stopped by SIGINT exits 0" 0 "$(cat "$out/int.rc" 2>/dev/null)"
read -r n_s n_out what < <(outside_image "$out/int.data")
if grep -q '^uwprof record: fully unwound: ' "$out/int.log" && [ "${n_s:-0}" -gt 0 ] &&
	[ "${n_out:-1}" -eq 0 ]; then
	ok "SIGINT: $n_s samples written, none outside the command's image"
else
	fail "SIGINT: ${n_out:-?} of ${n_s:-no} samples outside the image ($what): $(cat "$out/int.log")"
fi
if [ -e "$out/notrace.rc" ]; then
	expect "record -- CMD with tracing refused exits 0" 0 "$(cat "$out/notrace.rc")"
	if grep -q "warning: cannot trace the command (PTRACE_SEIZE: " "$out/notrace.log" &&
		rep -f folded "$out/notrace.data" | grep -q 'main;run;work_'; then
		ok "tracing refused: record warns and samples the command"
	else
		fail "tracing refused: $(cat "$out/notrace.log")"
	fi
else
	skip "tracing refused: no Yama in this kernel (/proc/sys/kernel/yama/ptrace_scope)"
fi

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

# -t: the fixture's one thread, quietly.
expect "record -q -t exits 0" 0 "$(cat "$out/tid.rc" 2>/dev/null)"
expect "record -q prints nothing" "" "$(cat "$out/tid.log" 2>/dev/null)"
hdrs=$(rep -f perf-script "$out/tid.data" | awk '/^[^[:space:]]/ {print $2}' | sort -u)
p=${hdrs%%/*}
if [ -n "$hdrs" ] && [ "$hdrs" = "$p/$p" ]; then
	ok "record -t: samples of that thread only ($hdrs)"
else
	fail "record -t: pid/tid of the samples: $(echo $hdrs) $(cat "$out/tid.log")"
fi

# lld: every frame in the program named, and as addr2line names it at the
# link address worked out here from the mapping and the program headers.
expect "record of the lld-linked fixture exits 0" 0 "$(cat "$out/lld.rc" 2>/dev/null)"
symfs_lld=(--symfs "$tmp" --symfs "$top/tests/data/report")
"$UWPROF" report -q "${symfs_lld[@]}" -f folded "$out/lld.data" >"$tmp/lld.folded"
if grep -q 'main;run;work_a;spin ' "$tmp/lld.folded" &&
   grep -q 'main;run;work_b;deep;deep;deep;deep;spin ' "$tmp/lld.folded"; then
	ok "lld: the fixture's call tree"
else
	fail "lld: no main;run;work_a;spin"; head -5 "$tmp/lld.folded" | sed 's/^/#   /'
fi
"$UWPROF" report -q "${symfs_lld[@]}" -f perf-script "$out/lld.data" >"$tmp/lld.ps"
if python3 - "$out/lld.data" "$lld_fixture" "$tmp/lld.ps" >"$tmp/lld.check" 2>&1 <<'EOF'
import struct, subprocess, sys
data, prog, ps = sys.argv[1:4]
b = open(data, 'rb').read()
pos = struct.unpack_from('<I', b, 12)[0]
maps = []
while pos + 8 <= len(b):
    t, size = struct.unpack_from('<II', b, pos)
    if t == 2:
        pid, start, end, off = struct.unpack_from('<4I', b, pos + 8)
        path = b[pos + 88:pos + size].split(b'\0')[0].decode()
        if path == '/data/fixture-lld':
            maps.append((start, end, off))
    pos += size
segs = []
for line in subprocess.run(['arm-linux-gnueabihf-readelf', '-lW', prog], capture_output=True,
                           text=True, check=True).stdout.splitlines():
    w = line.split()
    if w and w[0] == 'LOAD' and 'E' in w[6:-1]:
        segs.append((int(w[1], 16), int(w[2], 16), int(w[4], 16)))
def bias_of(start, end, off):
    for o, v, fs in segs:
        first, last = o & ~0xfff, (o + fs + 0xfff) & ~0xfff
        if first <= off and off + end - start <= last:
            return start - ((v & ~0xfff) + off - first)
# The first user frame is where the thread was (looked up at its address);
# the ones after it are return addresses (looked up one before, in the
# call). Kernel frames come first in a sample taken in the kernel: a page
# fault on the first fetch from a page of the program's code puts the user
# frame at the faulting instruction, which may be a function's first.
want = []
for sample in open(ps).read().split('\n\n'):
    lines = sample.strip('\n').split('\n')[1:]
    user = 0
    for line in lines:
        addr, rest = line.split(None, 1)
        name, dso = rest.rsplit(' (', 1)
        if dso == '[kernel.kallsyms])':
            continue
        user += 1
        if dso != '/data/fixture-lld)':
            continue
        a = int(addr, 16) & ~1
        m = next(m for m in maps if m[0] <= a < m[1])
        want.append((a - bias_of(*m) - (1 if user > 1 else 0), name))
# With -i, a chain per address, innermost first: uwprof names a frame by
# its symbol, the function the code was inlined into, the chain's last
# (a frame at a call that atoi, inlined into main, makes is main's).
out = subprocess.run(['arm-linux-gnueabihf-addr2line', '-a', '-f', '-i', '-e', prog] +
                     [hex(l) for l, n in want], capture_output=True,
                     text=True).stdout.split('\n')
got, i = [], 0
while i < len(out) and out[i].startswith('0x'):
    chain, i = [], i + 1
    while i + 1 < len(out) and not out[i].startswith('0x'):
        chain.append(out[i])
        i += 2
    got.append(chain[-1] if chain else '??')
# Where addr2line has no name (no debug information: a PLT stub, the
# C library's start-up code such as _start, reached now that libc.so.6
# unwinds to it), uwprof must give none ([module]) or the symbol table's
# function there, as nm lists it, or inside .plt a stub's NAME@plt, which
# uwprof reads from the PLT and nm does not list (one frame in 1,491 of
# a CI run landed in strtol's stub).
plt = None
for line in subprocess.run(['arm-linux-gnueabihf-readelf', '-SW', prog], capture_output=True,
                           text=True, check=True).stdout.splitlines():
    w = line.replace('[ ', '[').split()
    if len(w) > 5 and w[1] == '.plt':
        plt = (int(w[3], 16), int(w[3], 16) + int(w[5], 16))
def plt_stub(a, name):
    return plt and plt[0] <= a < plt[1] and name.endswith('@plt') and len(name) > 4
syms = []
for line in subprocess.run(['arm-linux-gnueabihf-nm', '-n', '--defined-only', prog],
                           capture_output=True, text=True, check=True).stdout.splitlines():
    w = line.split()
    if len(w) == 3 and w[1] in 'Tt' and not w[2].startswith('$'):
        syms.append((int(w[0], 16) & ~1, w[2]))
def symbol_at(a):
    name = None
    for v, nm in syms:
        if v > a:
            break
        name = nm
    return name
bad = [(hex(l), n, g) for (l, n), g in zip(want, got)
       if n != g and not (g == '??' and (n.startswith('[') or plt_stub(l, n) or
                                         n == symbol_at(l)))]
if len(got) != len(want):
    bad.append(('-', '%d frames' % len(want), '%d names' % len(got)))
for b in bad[:5]:
    print('link %s: uwprof %s, addr2line %s' % b)
print('%d frames, %d differ' % (len(want), len(bad)))
sys.exit(1 if bad or not want else 0)
EOF
then
	ok "lld: $(tail -1 "$tmp/lld.check") from addr2line"
else
	fail "lld: names differ from addr2line"; head -5 "$tmp/lld.check" | sed 's/^/#   /'
fi

# --jit-range with the file's path: spin's samples are walked as JIT code
# (V8's frame chain, which the fixture does not keep: they stop there),
# where a table walk ends nearly every one complete; before record matched
# paths, none was marked.  The two that mark nothing are warned of, each
# with why.
expect "record --jit-range exits 0" 0 "$(cat "$out/jitpath.rc" 2>/dev/null)"
read -r n_spin n_done < <(HERE=$here python3 -c '
import os, sys
sys.path.insert(0, os.environ["HERE"])
import uwdata
recs = uwdata.records(sys.argv[1])
lo, hi = int(sys.argv[2]), int(sys.argv[3])
ex = [(d["start"], d["end"], d["offset"]) for k, d in recs
      if k == "mapping" and d["path"] == "/data/fixture"]
n = done = 0
for k, d in recs:
    if k != "sample" or not d["frames"]:
        continue
    pc = d["frames"][0] & ~1
    if any(a <= pc < b and lo <= pc - a + o < hi for a, b, o in ex):
        n += 1
        done += d["stop"] in (0, 8)
print(n, done)' "$out/jitpath.data" "$spin_lo" "$spin_hi")
if [ "${n_spin:-0}" -ge 20 ] && [ $(( ${n_done:-0} * 10 )) -le "$n_spin" ]; then
	ok "--jit-range /data/fixture:$(cat "$tmp/spin.range"): $n_done of $n_spin samples in spin walked complete (JIT code now; by its table nearly all are)"
else
	fail "--jit-range /data/fixture:$(cat "$tmp/spin.range"): ${n_done:-?} of ${n_spin:-?} samples in spin walked complete: the path marked nothing"
	sed 's/^/#   /' "$out/jitpath.log"
fi
if grep -q "warning: --jit-range /no/such/lib.so:0x1000-0x2000 marked nothing: no process mapped /no/such/lib.so; give the file's path" "$out/jitpath.log" &&
	grep -q "warning: --jit-range fixture:0x7ff00000-0x7ff00010 marked nothing: no executable mapping of fixture holds that range" "$out/jitpath.log" &&
	! grep -q "warning: --jit-range /data/fixture" "$out/jitpath.log"; then
	ok "--jit-range: the two that marked nothing are warned of, with why"
else
	fail "--jit-range warnings: $(grep -- '--jit-range' "$out/jitpath.log")"
fi

# Errors.
expect "record -p DEADPID exits 2" 2 "$(cat "$out/dead.rc" 2>/dev/null)"
if grep -q 'no process 999999' "$out/dead.log"; then ok "dead pid named"; else
	fail "dead pid: $(cat "$out/dead.log")"; fi
# 64-bit programs run on an arm64 kernel (aarch64, armv8l under the 32-bit
# personality) and on no other: only there is their absence a skip.
machine=$(cat "$out/machine" 2>/dev/null)
case $machine in aarch64|armv8l) arm64=1 ;; *) arm64= ;; esac
if [ ! -x "$spin64" ]; then
	fail "record -p PID64: no $spin64 (make selftests builds it)"
elif [ -e "$out/pid64.rc" ]; then
	expect "record -p PID64 exits 2" 2 "$(cat "$out/pid64.rc")"
	if grep -q "cannot profile pid [0-9]*: it runs 64-bit code" "$out/pid64.log"; then
		ok "64-bit pid: says it runs 64-bit code"
	else
		fail "64-bit pid: $(cat "$out/pid64.log")"
	fi
elif [ -n "$arm64" ]; then
	fail "record -p PID64: spin64 did not start on this arm64 kernel ($machine): $(cat "$out/spin64.err" 2>/dev/null)"
else
	skip "record -p PID64: 64-bit programs cannot run on a 32-bit kernel (${machine:-uname -m gave nothing})"
fi
expect "record without the module exits 1" 1 "$(cat "$out/nomod.rc" 2>/dev/null)"
if grep -q 'insmod uwprof.ko' "$out/nomod.log"; then ok "no module: says to insmod"; else
	fail "no module: $(cat "$out/nomod.log")"; fi
finish
