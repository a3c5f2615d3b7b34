# SPDX-License-Identifier: GPL-2.0
# Sourced by bench/perf/bench.sh when BENCH_PROGRAMS has node, with its
# $root (the VM root), $B (its /bench), $tables_log, build_id and say:
# node, the Chrome-sized workload, into the VM root and its tables into
# $B/tables-node; chromium's table (make test-chromium's) and libnode's into
# $B/up with bench/big/upload.c, for run-vm.sh to upload and time.
#
# Debian's armhf node as shipped (make test-node fetches its packages
# into build/node/root): its files join the root's, the root's own
# (the same Debian release) kept where both have one.  Its tables are made
# from the files as they are in the root, with --prologue-analysis and no
# debug file (Debian ships none for them), like make bench-big's, and kept
# in build/bench-node-tables by build-id until build/host/uwprof changes:
# libnode's takes a minute or two.

node_root=$BUILD/node/root
[ -x "$node_root/usr/bin/node" ] ||
	{ say "no node in $node_root; run make test-node once (it fetches node's packages)"; exit 1; }
cp -an "$node_root/usr/." "$root/usr/"
cp -an "$node_root/lib/arm-linux-gnueabihf/." "$root/usr/lib/arm-linux-gnueabihf/"
cp "$top/bench/big/work.js" "$B/work/"

. "$top/tests/node/files.sh"
node_cache=$BUILD/bench-node-tables
mkdir -p "$node_cache"
[ "$node_cache/.made" -nt "$BUILD/host/uwprof" ] || rm -f "$node_cache"/*
touch "$node_cache/.made"
# node's tables apart (bench/perf/workloads.sh, uwprof_options)
mkdir -p "$B/tables-node"
for f in $NODE_FILES; do
	host=$(readlink -f "$root/$f")
	case $host in "$root"/*) ;; *) say "$f leaves the VM root ($host)"; exit 1 ;; esac
	bid=$(build_id "$host")
	# the C library's came with its debug files above
	if [ -f "$B/tables/$bid.uwt" ]; then
		cp "$B/tables/$bid.uwt" "$B/tables-node/"
		continue
	fi
	if [ ! -f "$node_cache/$bid.uwt" ]; then
		say "table for $f"
		"$BUILD/host/uwprof" table "$host" --build-id-dir "$node_cache" \
			--prologue-analysis --stats >"$node_cache/$bid.stats.new"
		mv "$node_cache/$bid.stats.new" "$node_cache/$bid.stats"
	fi
	cp "$node_cache/$bid.uwt" "$B/tables-node/"
	echo "== $(basename "$f") ${host#"$root"}" >>"$tables_log"
	cat "$node_cache/$bid.stats" >>"$tables_log"
done

mkdir -p "$B/up"
cp "$BUILD/arm/bench/upload" "$B/upload"
bid=$(build_id "$root/usr/lib/arm-linux-gnueabihf/libnode.so.108")
cp "$B/tables-node/$bid.uwt" "$B/up/libnode.uwt"
chromium=$BUILD/chromium-stock/root/usr/lib/chromium/chromium
ct=
[ ! -f "$chromium" ] ||
	ct=$(ls "$BUILD"/chromium-stock/tables/*/"$(build_id "$chromium")".uwt 2>/dev/null | head -n 1)
if [ -n "$ct" ]; then
	cp "$ct" "$B/up/chromium.uwt"
else
	say "skipped: chromium's table (none in $BUILD/chromium-stock/tables; make test-chromium makes it)"
fi
