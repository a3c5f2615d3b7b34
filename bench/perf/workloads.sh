# SPDX-License-Identifier: GPL-2.0
# Sourced by bench/perf/run-vm.sh and tests/host/corpus_vm.sh, in the VM.
# workload PROG [DIR]: the command line of PROG's workload, the program
# in DIR/bin (default /bench), its inputs in DIR/work.  The corpus
# programs (scripts/build-corpus.sh) compress DIR/work/corpus.in
# (bench/perf/corpus-input.py) to standard output; the multi-threaded
# ones with four compressing threads on the VM's two CPUs.  leveldb's
# db_bench runs four std::thread benchmark threads (five while one
# writes and four read) on a fresh database in /tmp; its 256 KiB write
# buffer makes the background compaction thread flush and compact as
# they write.  lua runs bench.lua at scale BENCH_LUA_SCALE (default 1;
# make bench uses 8).  node, the Chrome-sized workload (Debian's armhf
# node, libnode's 25 MB of code under V8's JIT frames), runs
# bench/big/work.js for BENCH_NODE_ROUNDS rounds (default 12), writing
# V8's perf map and jitdump (jit-PID.dump in the current directory) in
# every run alike: uwprof record copies the jitdump into its data file, and
# the checker judges JIT frames by its code.
workload() {
	local p=$1 d=${2:-/bench}
	local in=$d/work/corpus.in
	case $p in
	lua-*) echo "$d/bin/$p $d/work/bench.lua ${BENCH_LUA_SCALE:-1}" ;;
	sqlite-*) echo "$d/bin/$p -init $d/work/bench.sql :memory: .quit" ;;
	zstd-*) echo "$d/bin/$p -T4 -9 -c -f $in" ;;
	xz-*) echo "$d/bin/$p -T4 --block-size=512KiB -3 -c -f $in" ;;
	pbzip2-*) echo "$d/bin/$p -p4 -9 -c -f $in" ;;
	bzip2-*) echo "$d/bin/$p -9 -c -f $in" ;;
	lz4-*) echo "$d/bin/$p -9 -c -f $in" ;;
	brotli-*) echo "$d/bin/$p -q 6 -c -f $in" ;;
	leveldb-*) echo "$d/bin/$p --db=/tmp/leveldb-$p --num=10000 --threads=4" \
		"--write_buffer_size=262144" \
		"--benchmarks=fillrandom,readrandom,seekrandom,readwhilewriting" ;;
	node) echo "/usr/bin/node --perf-basic-prof --perf-prof" \
		"$d/work/work.js ${BENCH_NODE_ROUNDS:-12}" ;;
	*) echo "workload: no workload for '$p'" >&2; return 1 ;;
	esac
}

# uwprof_options PROG [DIR]: uwprof record's options for PROG beyond the
# rate and the output: its tables, in DIR/tables (default /bench), node's
# apart in DIR/tables-node (record uploads every table of the directory
# as it starts, and node's 2 MB would weigh on every other program's
# start-up); for node, its JIT code walked by V8's frame chain.
uwprof_options() {
	local d=${2:-/bench}
	case $1 in
	node) echo "--jit v8-arm --tables $d/tables-node" ;;
	*) echo "--tables $d/tables" ;;
	esac
}
