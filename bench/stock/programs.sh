# SPDX-License-Identifier: GPL-2.0
# The stock corpus: Debian armhf packages exactly as shipped (stripped, no
# debug files), with every shared library they load from Debian's packages
# as shipped too.  Sourced by scripts/build-stock.sh (which fetches them
# into build/stock), tests/host/stock_vm.sh and make bench-stock on the
# host, and by the VM's run script (busybox sh) for stock_workload.
#
# STOCK_PROGRAMS: NAME:PACKAGE:PATH, PATH as the package installs it.
#   pbzip2   C++ (libstdc++6), compresses with two pthreads
#   xz       liblzma's block-parallel encoder, two threads (-T2)
#   zstd     two compression workers (-T2)
#   lua5.4   the interpreter running bench/perf/bench.lua
#   sqlite3  the shell running bench/perf/bench.sql in memory
#   gzip     single-threaded C
STOCK_PROGRAMS="pbzip2:pbzip2:/usr/bin/pbzip2 xz:xz-utils:/usr/bin/xz
zstd:zstd:/usr/bin/zstd lua5.4:lua5.4:/usr/bin/lua5.4
sqlite3:sqlite3:/usr/bin/sqlite3 gzip:gzip:/bin/gzip"

# The libraries they load (their DT_NEEDED, closed over; build-stock.sh
# checks that every one is found here), the C library without libc6-dbg.
STOCK_LIBRARIES="libc6 libgcc-s1 libstdc++6 libbz2-1.0 liblzma5 liblz4-1
zlib1g libreadline8 libtinfo6 libsqlite3-0"

# The directories the guest's loader searches, as Debian's does.
STOCK_LIBDIRS="/lib/arm-linux-gnueabihf /usr/lib/arm-linux-gnueabihf"

# stock_workload NAME DIR: the command line of NAME's workload, the
# program where its package puts it, its inputs in DIR (corpus.in from
# bench/perf/corpus-input.py, bench.lua, bench.sql).  LUA_SCALE (default
# 2) sizes the Lua run.
stock_workload() {
	case $1 in
	pbzip2) echo "/usr/bin/pbzip2 -p2 -9 -c -f $2/corpus.in" ;;
	xz) echo "/usr/bin/xz -T2 --block-size=512KiB -3 -c -f $2/corpus.in" ;;
	zstd) echo "/usr/bin/zstd -T2 -9 -c -f $2/corpus.in" ;;
	lua5.4) echo "/usr/bin/lua5.4 $2/bench.lua ${LUA_SCALE:-2}" ;;
	sqlite3) echo "/usr/bin/sqlite3 -init $2/bench.sql :memory: .quit" ;;
	gzip) echo "/bin/gzip -9 -c -f $2/corpus.in" ;;
	*) echo "stock_workload: no workload for '$1'" >&2; return 1 ;;
	esac
}
