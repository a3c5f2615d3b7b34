#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-corpus.sh [BUILD [PROG-CC...]]
#
# The benchmark corpus beyond lua5.4 and sqlite3: real programs from
# Debian bookworm's source packages, cross-built for armhf, Thumb-2, -O2 -g
# (so with .debug_frame) and -funwind-tables, like build-lua.sh builds lua:
#
#   program  language, threads         why this one
#   zstd     C, pthreads (-T)          a compressor with a worker pool, plain sources
#   xz       C, pthreads (-T)          liblzma's threaded encoder; small configure
#   pbzip2   C++, pthreads             a C++ program (libstdc++, EH tables), a
#                                      thread per block; libbz2 from bzip2's source
#   bzip2    C                         tiny, deep recursion-free hot loops
#   lz4      C                         tiny, tight inlined loops (HC mode)
#   brotli   C                         large encoder with many leaf helpers
#   leveldb  C++, std::thread          leveldb's db_bench: threads started by
#                                      std::thread (libstdc++'s thread entry),
#                                      virtual interfaces (Env, Iterator,
#                                      Comparator), built with exceptions on
#                                      (leveldb's own build turns them off)
#
# Each program is built twice, with gcc and with clang, and the two builds
# spread over GNU ld and lld, static and dynamic (the table below), so
# every combination appears.  Dynamic builds need only the C library (and
# the C++ ones libstdc++.so.6 and libgcc_s.so.1): the programs' own
# libraries (libzstd, liblzma, libbz2, leveldb, ...) are linked in.
# Output: BUILD/arm/corpus/PROG-CC/PROG, beside it "recipe" (compiler,
# linker, linkage) and "build-seconds".  PROG-CC... (e.g. zstd-gcc) builds
# only those, and fetches only their sources.  Idempotent: a build whose
# program exists is skipped.  Needs deb-src (enabled if missing), the armhf cross
# gcc and g++, clang and lld, and googletest's headers (leveldb's db_bench
# includes them) (scripts/packages.txt).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-$here/build}}
[ $# -gt 0 ] && shift
only=" $* "
src_dir=$BUILD/src/corpus
arm_dir=$BUILD/arm/corpus
mkdir -p "$src_dir" "$arm_dir"
JOBS=${JOBS:-2}

say() { echo "build-corpus: $*" >&2; }

. "$here/scripts/apt.sh"

common=(-O2 -g -mthumb -funwind-tables)
clang_target=(--target=arm-linux-gnueabihf -march=armv7-a -mfloat-abi=hard
	--gcc-toolchain=/usr)

# set_toolchain CC LD LINKAGE: cc, cxx and ldflags for one build
set_toolchain() {
	case $1 in
	# -Wno-psabi: g++'s notes that GCC 7.1 changed how some arguments
	# are passed (nothing here links against code that old)
	gcc) cc=(arm-linux-gnueabihf-gcc "${common[@]}")
	     cxx=(arm-linux-gnueabihf-g++ "${common[@]}" -Wno-psabi) ;;
	# clang refuses pbzip2's "%"PRIuMAX"" as a user-defined literal
	# (an error by default); gcc only warns.
	clang) cc=(clang "${clang_target[@]}" "${common[@]}")
	       cxx=(clang++ "${clang_target[@]}" "${common[@]}"
		    -Wno-reserved-user-defined-literal) ;;
	esac
	ldflags=(-fuse-ld="$2")
	# The cross gcc looks for the linker only under its own names
	# (arm-linux-gnueabihf-ld*); -B points it at lld as "ld".
	if [ "$1" = gcc ] && [ "$2" = lld ]; then
		mkdir -p "$BUILD/arm/lld-as-ld"
		ln -sf "$(command -v ld.lld)" "$BUILD/arm/lld-as-ld/ld"
		ldflags=(-B"$BUILD/arm/lld-as-ld/")
	fi
	[ "$3" = static ] && ldflags+=(-static)
	return 0
}

# compile OBJDIR COMPILER-ARRAY-NAME FLAGS... -- SOURCES...: one object per
# source, JOBS at a time; objects of different directories may share a
# base name, so the object is named after the source's last two path parts.
compile() {
	local objdir=$1 tool=$2
	shift 2
	local -a flags=() srcs=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do flags+=("$1"); shift; done
	shift
	srcs=("$@")
	local -n toolv=$tool
	local s o n=0
	mkdir -p "$objdir"
	for s in "${srcs[@]}"; do
		o=$objdir/$(basename "$(dirname "$s")")-$(basename "${s%.*}").o
		"${toolv[@]}" "${flags[@]}" -c "$s" -o "$o" &
		n=$((n + 1))
		if [ "$n" -ge "$JOBS" ]; then wait -n; n=$((n - 1)); fi
	done
	while [ "$n" -gt 0 ]; do wait -n; n=$((n - 1)); done
}

# begin PROG CC LD LINKAGE: sets out (or returns 1 when already built or
# not asked for)
begin() {
	out=$arm_dir/$1-$2
	[ "$only" = "  " ] || [[ $only == *" $1-$2 "* ]] || return 1
	[ -x "$out/$1" ] && return 1
	say "building $1-$2 ($2, ld=$3, $4)"
	rm -rf "$out"
	mkdir -p "$out/obj"
	set_toolchain "$2" "$3" "$4"
	printf 'compiler=%s\nlinker=%s\nlinkage=%s\n' "$2" "$3" "$4" >"$out/recipe"
	t0=$(date +%s)
}
finish_build() {
	mv "$out/$1.tmp" "$out/$1"
	echo $(( $(date +%s) - t0 )) >"$out/build-seconds"
}

build_zstd() {
	begin zstd "$@" || return 0
	local s
	s=$(fetch_source libzstd 'libzstd-[0-9]*')
	compile "$out/obj" cc -DZSTD_MULTITHREAD -DZSTD_LEGACY_SUPPORT=0 \
		-DZSTD_DISABLE_ASM -DXXH_NAMESPACE=ZSTD_ -pthread -I"$s/lib" \
		-I"$s/lib/common" -- "$s"/lib/common/*.c "$s"/lib/compress/*.c \
		"$s"/lib/decompress/*.c "$s"/lib/dictBuilder/*.c "$s"/programs/*.c
	"${cc[@]}" "${ldflags[@]}" -pthread -o "$out/zstd.tmp" "$out"/obj/*.o
	finish_build zstd
}

build_xz() {
	begin xz "$@" || return 0
	local xz_src
	xz_src=$(fetch_source xz-utils 'xz-utils-[0-9]*')
	# libtool drops a plain -static when it links a program
	local extra=()
	[ "$3" = static ] && extra=(LDFLAGS=-all-static)
	(cd "$out/obj" && "$xz_src/configure" -q --host=arm-linux-gnueabihf \
		CC="${cc[*]} ${ldflags[*]}" \
		--disable-shared --enable-static --disable-nls --disable-doc \
		--disable-scripts --disable-xzdec --disable-lzmadec \
		--disable-lzmainfo --disable-lzma-links >/dev/null &&
		make -j"$JOBS" -C src/liblzma >/dev/null &&
		make -j"$JOBS" -C src/xz "${extra[@]}" >/dev/null) ||
		{ say "xz-$1 failed in $out/obj"; exit 1; }
	cp "$out/obj/src/xz/xz" "$out/xz.tmp"
	finish_build xz
}

bz_lib=(blocksort huffman crctable randtable compress decompress bzlib)
bz_lib_srcs() { local f; for f in "${bz_lib[@]}"; do echo "$bzip2_src/$f.c"; done; }
bzip2_source() { bzip2_src=$(fetch_source bzip2 'bzip2-[0-9]*'); }

build_bzip2() {
	begin bzip2 "$@" || return 0
	bzip2_source
	compile "$out/obj" cc -D_FILE_OFFSET_BITS=64 -- \
		$(bz_lib_srcs) "$bzip2_src/bzip2.c"
	"${cc[@]}" "${ldflags[@]}" -o "$out/bzip2.tmp" "$out"/obj/*.o
	finish_build bzip2
}

build_pbzip2() {
	begin pbzip2 "$@" || return 0
	local pbzip2_src
	bzip2_source
	pbzip2_src=$(fetch_source pbzip2 'pbzip2-[0-9]*')
	compile "$out/obj" cc -D_FILE_OFFSET_BITS=64 -- $(bz_lib_srcs)
	compile "$out/obj" cxx -D_LARGEFILE64_SOURCE -D_FILE_OFFSET_BITS=64 \
		-DUSE_STACKSIZE_CUSTOMIZATION -pthread -I"$bzip2_src" -- \
		"$pbzip2_src"/pbzip2.cpp "$pbzip2_src"/BZ2StreamScanner.cpp \
		"$pbzip2_src"/ErrorContext.cpp
	"${cxx[@]}" "${ldflags[@]}" -pthread -o "$out/pbzip2.tmp" "$out"/obj/*.o
	finish_build pbzip2
}

build_lz4() {
	begin lz4 "$@" || return 0
	local lz4_src
	lz4_src=$(fetch_source lz4 'lz4-[0-9]*')
	compile "$out/obj" cc -I"$lz4_src/lib" -- "$lz4_src"/lib/lz4.c \
		"$lz4_src"/lib/lz4hc.c "$lz4_src"/lib/lz4frame.c \
		"$lz4_src"/lib/xxhash.c "$lz4_src"/programs/*.c
	"${cc[@]}" "${ldflags[@]}" -o "$out/lz4.tmp" "$out"/obj/*.o
	finish_build lz4
}

build_brotli() {
	begin brotli "$@" || return 0
	local s
	s=$(fetch_source brotli 'brotli-[0-9]*')/c
	compile "$out/obj" cc -I"$s/include" -- "$s"/common/*.c "$s"/dec/*.c \
		"$s"/enc/*.c "$s"/tools/brotli.c
	"${cc[@]}" "${ldflags[@]}" -o "$out/brotli.tmp" "$out"/obj/*.o -lm
	finish_build brotli
}

# db_bench from leveldb's source, without its CMake build: that one adds
# -fno-exceptions, and this build keeps C++ exceptions on (-fexceptions:
# landing pads and .ARM.extab entries with a personality routine in every
# function that owns a std::string or a lock); -DNDEBUG as leveldb's
# release build has it.  No snappy or crc32c library: port_config.h says
# so, and leveldb uses its own CRC32C.
# util/testutil.h includes googletest's headers, which only the host has:
# a directory of links to them, so the cross compilers see nothing else
# of the host's /usr/include.
build_leveldb() {
	begin leveldb "$@" || return 0
	local s inc=$out/obj/include f
	s=$(fetch_source leveldb 'leveldb-[0-9]*')
	mkdir -p "$inc/port"
	for f in gtest gmock; do
		[ -d "/usr/include/$f" ] ||
			{ say "no /usr/include/$f (libgmock-dev, libgtest-dev)"; exit 1; }
		ln -s "/usr/include/$f" "$inc/$f"
	done
	printf '#define HAVE_%s\n' "FDATASYNC 1" "FULLFSYNC 0" "O_CLOEXEC 1" \
		"CRC32C 0" "SNAPPY 0" >"$inc/port/port_config.h"
	compile "$out/obj" cxx -std=c++11 -fexceptions -pthread -DNDEBUG \
		-DLEVELDB_PLATFORM_POSIX=1 -DLEVELDB_HAS_PORT_CONFIG_H=1 \
		-I"$s" -I"$s/include" -I"$inc" -- \
		$(find "$s/db" "$s/table" "$s/util" -name '*.cc' \
			! -name '*_test.cc' ! -name 'leveldbutil.cc' \
			! -name 'env_windows.cc' | sort) \
		"$s/helpers/memenv/memenv.cc" "$s/benchmarks/db_bench.cc"
	"${cxx[@]}" "${ldflags[@]}" -pthread -o "$out/leveldb.tmp" "$out"/obj/*.o
	finish_build leveldb
}

# program   compiler  linker  linkage
build_zstd   gcc   bfd static
build_zstd   clang lld dynamic
build_xz     gcc   bfd dynamic
build_xz     clang lld static
build_pbzip2 gcc   lld static
build_pbzip2 clang bfd static
build_bzip2  gcc   lld dynamic
build_bzip2  clang bfd dynamic
build_lz4    gcc   lld static
build_lz4    clang bfd dynamic
build_brotli gcc   bfd dynamic
build_brotli clang lld static
build_leveldb gcc  bfd dynamic
build_leveldb clang lld dynamic
say "done: $(cd "$arm_dir" && echo *-*/)"
