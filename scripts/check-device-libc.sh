#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The device-side uwprof (make uwprof-arm, mk/uwprof-arm.mk) is one static
# binary made of tools/uwprof/lib/, the device commands (record/, report/
# but for its host-only files), the table generator (table/) and the
# unwinder, linked with the C library and a fixed list of static
# libraries (mk/uwprof-arm.mk DEVICE_LIBS: libdw, libelf, capstone, libzstd,
# liblzma, libbz2, zlib), from Debian's armhf -dev packages unpacked into a
# build-local sysroot (scripts/setup.sh).  mk/uwprof-arm.mk compiles the
# sources with -nostdinc against the C library's own headers and the
# sysroot's, so a reachable #include of anything else fails the compile;
# this script covers the rest:
#
#   check-device-libc.sh includes CC SYSROOT FILE...
#       every #include <...> in FILE, and in the repository headers FILE
#       reaches through #include "...", names a header of the C library
#       CC links (or of CC itself) or one of SYSROOT/usr/include (which
#       holds only those libraries' headers), even one behind an #if the
#       device build does not take; every #include "..." resolves to lib/,
#       record/, report/, table/, uwprof.h, the unwinder or uapi/.
#   check-device-libc.sh link TRACE LIB...
#       TRACE is the linker's --trace output for the device binary: every
#       library it read is the C library (libc.a, or libm, libpthread,
#       libdl, librt, which glibc ships apart), the compiler's libgcc, or
#       libLIB.a for a LIB given (DEVICE_LIBS), and every one of those
#       comes from SYSROOT's archive, not the host's; no shared object.
#
# Prints what breaks the rule and exits 1; silent and 0 otherwise.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:?usage: $0 includes CC SYSROOT FILE... | link TRACE LIB...}
shift

fail=0
bad() {
	echo "device build takes libc and its listed static libraries only: $*" >&2
	fail=1
}

case $mode in
includes)
	cc=$1
	sysroot=$2
	shift 2
	# The C library's headers sit beside the libc.a the static link uses.
	libc_a=$($cc -print-file-name=libc.a)
	[ -f "$libc_a" ] || { echo "$0: $cc has no libc.a" >&2; exit 1; }
	sysinc=("$(cd "$(dirname "$libc_a")/../include" && pwd)"
		"$($cc -print-file-name=include)")
	[ -d "$sysroot/usr/include" ] ||
		{ echo "$0: no $sysroot/usr/include (make setup)" >&2; exit 1; }
	sysinc+=("$(cd "$sysroot/usr/include" && pwd)")
	allowed=("$top/tools/uwprof/lib/" "$top/tools/uwprof/record/"
		 "$top/tools/uwprof/report/" "$top/tools/uwprof/table/"
		 "$top/tools/uwprof/uwprof.h"
		 "$top/uapi/" "$top/tools/include/" "$top/unwind_v2.h"
		 "$top/uwprof_arch.h")
	declare -A seen=()
	queue=()
	for f in "$@"; do
		queue+=("$(cd "$(dirname "$f")" && pwd)/$(basename "$f")")
	done
	while [ ${#queue[@]} -gt 0 ]; do
		f=${queue[0]}
		queue=("${queue[@]:1}")
		[ -n "${seen[$f]:-}" ] && continue
		seen[$f]=1
		rel=${f#"$top"/}
		while IFS= read -r line; do
			no=${line%%:*}
			inc=${line#*:}
			if [[ $inc =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\<([^\>]+)\> ]]; then
				h=${BASH_REMATCH[1]}
				found=
				for d in "${sysinc[@]}"; do
					[ -f "$d/$h" ] && found=1 && break
				done
				[ -n "$found" ] ||
					bad "$rel:$no includes <$h>, not a header of the C library or of a listed library"
			elif [[ $inc =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\"([^\"]+)\" ]]; then
				h=${BASH_REMATCH[1]}
				path=
				for d in "$(dirname "$f")" "$top/tools/uwprof" "$top" \
					 "$top/tools/include"; do
					if [ -f "$d/$h" ]; then
						path=$(cd "$(dirname "$d/$h")" && pwd)/$(basename "$h")
						break
					fi
				done
				if [ -z "$path" ]; then
					bad "$rel:$no includes \"$h\", which is not in the repository"
					continue
				fi
				ok=
				for a in "${allowed[@]}"; do
					[[ $path == "$a"* ]] && ok=1 && break
				done
				if [ -n "$ok" ]; then
					queue+=("$path")
				else
					bad "$rel:$no includes \"$h\" (${path#"$top"/}), outside lib/, record/, report/ and table/"
				fi
			fi
		done < <(grep -n '^[[:space:]]*#[[:space:]]*include' "$f" || true)
	done
	;;
link)
	trace=$1
	shift
	declare -A listed=()
	for l in "$@"; do
		listed[lib$l.a]=1
	done
	# ld --trace names each input file, and each archive member it pulls
	# as "(archive)member"; shared objects would be named too.
	while IFS= read -r lib; do
		b=$(basename "$lib")
		case $b in
		libc.a|libm.a|libpthread.a|libdl.a|librt.a|libgcc.a|libgcc_eh.a) ;;
		*)
			if [ -z "${listed[$b]:-}" ]; then
				bad "the link read $lib, which is not a listed library"
			elif [[ $lib != */sysroot/usr/lib/* ]]; then
				bad "the link read $lib, not the sysroot's armhf archive"
			fi ;;
		esac
	done < <(grep -o '[^ ()]*\.\(a\|so\)\([.0-9]*\)\?\b' "$trace" | sort -u)
	;;
*)
	echo "usage: $0 includes CC SYSROOT FILE... | link TRACE LIB..." >&2
	exit 2
	;;
esac
exit $fail
