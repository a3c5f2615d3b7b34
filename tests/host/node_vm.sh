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
# Not yet judged: full unwinds.  libnode.so.108 (stripped, no unwind
# sections) cannot be tabled by uwprof table in one v2 table (its
# function offset table passes the format's 16-bit index: issue 21's
# table splitting), so every walk that leaves JIT code for libnode's C++
# code stops no-table there.  The thresholds below are about the JIT
# walk alone; NODE_TABLES=DIR adds DIR/*.uwt to the guest's tables (a
# libnode table made by a uwprof that can), and the test then also
# prints the share fully unwound, per thread kind, unjudged.
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
trap 'rm -rf "$tmp"' EXIT
g=$tmp/guest
mkdir -p "$g/tables" "$tmp/out"
# tables for the small libraries (not libnode: see above)
for f in usr/bin/node lib/arm-linux-gnueabihf/libc.so.6 \
	lib/arm-linux-gnueabihf/libm.so.6 lib/arm-linux-gnueabihf/libgcc_s.so.1 \
	usr/lib/arm-linux-gnueabihf/libstdc++.so.6 usr/lib/arm-linux-gnueabihf/libuv.so.1; do
	"$UWPROF" table --prologue-analysis "$node/root/$f" --build-id-dir "$g/tables" \
		>/dev/null 2>"$tmp/table.err" || fail "table for $f: $(tail -n 1 "$tmp/table.err")"
done
[ -n "${NODE_TABLES:-}" ] && cp "$NODE_TABLES"/*.uwt "$g/tables/"
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
	tail -n 20 "$tmp/vm.log" | sed 's/^/#   /'
	finish
	exit 1
fi
ok "node recorded in the VM ($(grep -c '' "$tmp/vm.log") console lines)"

"$PY" "$top/bench/perf/analyze.py" --check "$tmp/out/node.data" \
	--root "$node/root" --unstripped "$tmp" >"$tmp/check.txt"
read -r _ jchecked jok < <(grep '^jit ' "$tmp/check.txt")
for k in all main other; do
	read -r _ n full < <(grep "^$k " "$tmp/check.txt")
	echo "# fully unwound ($k threads): ${full:-?} of ${n:-?} samples"
done
if [ "${jchecked:-0}" -gt 100 ] && [ "$jchecked" = "$jok" ]; then
	ok "every JIT return address follows a call in jit-PID.dump's code ($jok)"
else
	fail "JIT return addresses after a call: ${jok:-?} of ${jchecked:-?}"
fi

# samples with a JIT frame (anonymous memory or the builtins' range), and
# those walked through them back into native code (V8's entry frame)
read -r total withjit through < <("$PY" - "$tmp/out/node.data" "$NODE_BLOB" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
lo, hi = (int(x, 16) for x in sys.argv[2].split('-'))
pos = struct.unpack_from('<I', b, 12)[0]
maps, samples = [], []
while pos + 8 <= len(b):
    t, s = struct.unpack_from('<II', b, pos)
    if t == 2:
        v = struct.unpack_from('<9I', b, pos + 8)
        maps.append((v[1], v[2], v[6], b[pos + 88:pos + s].split(b'\0')[0]))
    elif t == 1:
        n = struct.unpack_from('<I', b, pos + 8 + 24)[0]
        samples.append(struct.unpack_from('<%dI' % n, b, pos + 8 + 32))
    pos += s
def jit(a):
    a &= ~1
    for st, en, bias, p in maps:
        if st <= a < en:
            return p == b'//anon' or (p.endswith(b'libnode.so.108') and lo <= a - bias < hi)
    return True
withjit = through = 0
for fr in samples:
    kinds = [jit(a) for a in fr]
    if any(kinds):
        withjit += 1
        first = kinds.index(True)
        through += any(not k for k in kinds[first:])
print(len(samples), withjit, through)
PY
)
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
