#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian's armhf node (nodejs 18.20.4, V8 10.2, libnode.so.108 as shipped)
# in the VM, running tests/node/workload.js (hot functions calling each
# other and native code, on the main thread and a worker) under
# "uwprof record --jit v8-arm" (which finds V8's embedded builtins in
# libnode itself, record/v8blob.c) and node's --perf-basic-prof and
# --perf-prof.  Judged by the call-site checker (bench/perf/analyze.py
# --check), extended to JIT code: every JIT return address it meets must
# lie in code jit-PID.dump recorded and follow a call there.  Also: the share of samples with a JIT frame, the share
# of those that the walk took through the JIT frames and V8's entry frame
# back into native code, and the JIT frames named by report.
#
# Tables for every file node maps (below), libnode's in parts; the
# checker judges full unwinds as for the stock corpus (the outermost frame
# in node's entry point's first bytes, the loader's entry or the C
# library's clone), main thread and other threads apart.  libnode's table
# has rows of its own for V8's builtins (table/v8builtins.c): frameless
# leaves return to lr, the rest refuse and V8's frame walk takes them; and
# a walk that stops jit-chain goes again in task context once the code its
# JIT frame returns to is examined (a code page V8 made since the last
# sweep).  Measured by make test-node at 1 kHz on armmp-6.1 (4 s of
# workload, a loaded host), fully unwound before those two (main at
# 47016a3) and after:
#   before: 13,932 of 14,064 (99.06%; main thread 99.03%, others
#   99.10%); 80 stopped jit-chain in MemCopyUint8Uint8
#   (libnode+0x9f0fe0-0x9f1014), which C++ calls through a pointer as a
#   frameless leaf, so r11 is no V8 frame there; 17 refused in libc's
#   clone; the rest refused by ones and twos.  Another run of the leaf
#   rows alone: 98.98% (main 98.84%), 55 stopped jit-chain at
#   libnode+0x9e64a0, the C++ call's return in V8's CEntry, in two bursts
#   (one per thread) while an optimized function's new code page was not
#   attached yet.
#   after, two runs: 11,475 of 11,515 (99.65%; main 99.60%, others
#   99.71%) and 17,954 of 18,023 (99.62%; main 99.55%, others 99.69%).
#   What stops the rest (first run, second): refused in libc's clone (13,
#   18: between the clone system call and the test of its result, where
#   parent and child run the same code in different frames), in ld.so's
#   lazy-binding trampoline (ld-linux+0xcbdc, entered from PLT0 with the
#   return address on the stack; 3, 2), in libcrypto's hand-written
#   assembly (8, 4), in libnode functions prologue analysis refuses (a few
#   each), jit-chain (0, 10: sampled in JIT code whose frame is not set
#   up).
# The thresholds on full unwinds below are issue 25's target, 99% on
# every thread kind, which both runs pass by half a point at least.
#
# make test-node (not part of make check: it downloads about 30 MB of
# Debian packages into build/node and boots a VM with a 90 MB guest).
# NODE_BLOB, the builtins' range [start, end) at link addresses in
# 18.20.4+dfsg-1~deb12u2 (what V8's DefaultEmbeddedBlobCode() and
# ...CodeSize() give), tells JIT frames apart in the data file; the
# share walked back into native code shows record marked them.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
top=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$top/build}
UWPROF=${UWPROF:-$BUILD/host/uwprof}
NODE_BLOB=${NODE_BLOB:-0x955b20-0xac4f00}
SECONDS_RUN=${NODE_SECONDS:-4}
PY=/usr/bin/python3
node=$BUILD/node
need_checker

"$top/scripts/fetch-stock.sh" "$node" nodejs libnode108 libbrotli1 libc-ares2 \
	libc6 libgcc-s1 libicu72 libnghttp2-14 libssl3 libstdc++6 libuv1 zlib1g ||
	{ fail "fetch node's packages"; finish; exit 1; }
# node's JavaScript dependencies are architecture-independent packages
for p in node-acorn node-cjs-module-lexer node-undici node-busboy; do
	[ -e "$node/unpacked/$p" ] && continue
	(cd "$node/debs" && apt-get download -q "$p" >/dev/null 2>&1) &&
	dpkg -x "$(ls -t "$node/debs/${p}"_*_all.deb | head -n 1)" "$node/root" &&
	touch "$node/unpacked/$p" || { fail "fetch $p"; finish; exit 1; }
done

tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] && echo "# kept $tmp" || rm -rf "$tmp"' EXIT
g=$tmp/guest
mkdir -p "$g/tables" "$tmp/out"

# Tables for every file node maps: node, the libraries it needs (its
# DT_NEEDED closure in these packages), the loader and the vDSO, each
# from the file as shipped by "uwprof table FILE --prologue-analysis"
# (libnode's in parts; each file's --report in $tmp/tables/reports, kept
# with KEEP=1).  After the run every executable file mapping of node
# must have had a table attached.
. "$top/tests/node/files.sh"
tables=$tmp/tables
mkdir -p "$tables/reports"
"$top/scripts/kernel-vdso.py" "$("$top/scripts/vm.sh" --print-kernel)" \
	"$tables/vdso.so" 2>"$tmp/vdso.err" ||
	{ fail "the kernel's vDSO: $(tail -n 1 "$tmp/vdso.err")"; finish; exit 1; }
for f in $NODE_FILES vdso.so; do
	case $f in vdso.so) in=$tables/vdso.so ;; *) in=$node/root/$f ;; esac
	"$UWPROF" table --prologue-analysis "$in" --build-id-dir "$g/tables" \
		--report "$tables/reports/${f##*/}" >/dev/null 2>"$tmp/table.err" ||
		{ fail "table for $f: $(tail -n 1 "$tmp/table.err")"; finish; exit 1; }
done
# The checker reads the files at their paths in the guest, and the vDSO
# as "[vdso]", the name of its mapping.
croot=$tmp/root
mkdir -p "$croot"
ln -s "$node/root/usr" "$node/root/lib" "$croot/"
ln -s "$node/root/lib/arm-linux-gnueabihf" "$croot/nodelib"
cp "$tables/vdso.so" "$croot/[vdso]"
cp "$BUILD/arm/uwprof" "$top/tests/node/workload.js" "$g/"
cat >"$g/run.sh" <<GUEST
#!/bin/sh
insmod /uwprof.ko
export LD_LIBRARY_PATH=/usr/lib/arm-linux-gnueabihf:/nodelib
mkdir -p /tmp/w && cd /tmp/w
/node-test/uwprof record -q --jit v8-arm \\
	--no-auto-tables --tables /node-test/tables -F 1000 -o /out/node.data -- \\
	/usr/bin/node --perf-basic-prof --perf-prof /node-test/workload.js $SECONDS_RUN
GUEST
chmod +x "$g/run.sh"
if ! "$top/scripts/vm.sh" --timeout 900 --mem 1536 --out "$tmp/out" \
	--add "$node/root/usr/.:/usr" \
	--add "$node/root/lib/arm-linux-gnueabihf:/nodelib" \
	--add "$g:/node-test" -- /node-test/run.sh >"$tmp/vm.log" 2>&1 ||
   [ ! -s "$tmp/out/node.data" ]; then
	fail "node recorded in the VM"
	vm_log_tail "$tmp/vm.log" 20
	finish
	exit 1
fi
ok "node recorded in the VM ($(grep -c '' "$tmp/vm.log") console lines)"

"$PY" "$top/bench/perf/analyze.py" --check "$tmp/out/node.data" \
	--exe /usr/bin/node --root "$croot" --unstripped "$tmp" >"$tmp/check.txt"
read -r _ jchecked jok < <(grep '^jit ' "$tmp/check.txt")
# NODE_MIN: KIND:PERMILLE, the least share of KIND's samples fully unwound
NODE_MIN="all:990 main:990 other:990"
for k in all main other; do
	read -r _ n full < <(grep "^$k " "$tmp/check.txt")
	min=$(echo "$NODE_MIN" | tr ' ' '\n' | sed -n "s/^$k://p")
	if [ "${n:-0}" -gt 0 ] && [ $(( ${full:-0} * 1000 / n )) -ge "$min" ]; then
		ok "fully unwound ($k threads): $full of $n samples (at least $((min / 10)).$((min % 10))%)"
	else
		fail "fully unwound ($k threads): ${full:-?} of ${n:-?} samples (below $((min / 10)).$((min % 10))%)"
	fi
done
# where the others stopped: thread kind, stop, last frame, samples
grep '^where ' "$tmp/check.txt" | head -n 12 | sed 's/^where/#   where/'
grep '^why ' "$tmp/check.txt" | head -n 8 | sed 's/^why/#   why/'
if [ "${jchecked:-0}" -gt 100 ] && [ "$jchecked" = "$jok" ]; then
	ok "every JIT return address follows a call in jit-PID.dump's code ($jok)"
else
	fail "JIT return addresses after a call: ${jok:-?} of ${jchecked:-?}"
fi

# samples with a JIT frame (anonymous memory or the builtins' range), and
# those walked through them back into native code (V8's entry frame); the
# executable file mappings that had no table attached ("-": none)
read -r total withjit through untabled < <(HERE="$here" "$PY" - "$tmp/out/node.data" "$NODE_BLOB" <<'PY'
import os, sys
sys.path.insert(0, os.environ["HERE"])
import uwdata
lo, hi = (int(x, 16) for x in sys.argv[2].split('-'))
maps, samples, untabled = [], [], set()
for k, d in uwdata.records(sys.argv[1]):
    if k == 'mapping':
        maps.append((d['start'], d['end'], d['bias'], d['path']))
        # node maps its jitdump executable for perf to see: not code
        name = d['path'].rsplit('/', 1)[-1]
        dump = name.startswith('jit-') and name.endswith('.dump')
        if d['path'] != '//anon' and not dump and not d['flags'] & 1:
            untabled.add(d['path'])
    elif k == 'sample':
        samples.append(d['frames'])
def jit(a):
    a &= ~1
    for st, en, bias, p in maps:
        if st <= a < en:
            return p == '//anon' or (p.endswith('libnode.so.108') and lo <= a - bias < hi)
    return True
withjit = through = 0
for fr in samples:
    kinds = [jit(a) for a in fr]
    if any(kinds):
        withjit += 1
        first = kinds.index(True)
        through += any(not k for k in kinds[first:])
print(len(samples), withjit, through, ','.join(sorted(untabled)) or '-')
PY
)
if [ "${untabled:-?}" = - ]; then
	ok "every executable file mapping of node had a table attached"
else
	fail "executable file mappings without a table: ${untabled:-?}"
fi
echo "# $total samples, $withjit with a JIT frame ($((100 * withjit / (total ? total : 1)))%), $through of them walked back into native code"
if [ "${withjit:-0}" -ge $((total / 10)) ]; then
	ok "at least 10% of the samples have a JIT frame"
else
	fail "samples with a JIT frame: $withjit of $total"
fi
if [ $((100 * through)) -ge $((95 * withjit)) ] && [ "$withjit" -gt 0 ]; then
	ok "at least 95% of those walked through V8's frames back into native code"
else
	fail "walked back into native code: $through of $withjit"
fi
if "$UWPROF" report -q -f folded "$tmp/out/node.data" 2>/dev/null |
   grep -q 'LazyCompile:\*[a-zA-Z]* /node-test/workload.js:[0-9]*'; then
	ok "report names JIT frames from the perf map"
else
	fail "no JIT frame named by report"
fi
finish
