#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Ground truth under qemu-user (tests/gt/gt.c): the program profiles its
# own threads with SIGPROF and the tables uwprof builds for it and its
# C library, and judges every sample against the chain it knows.  Built
# four ways (gcc and clang, static and dynamic, Thumb-2), with one file
# built without unwind information (tests/gt/gt_nocfi.c), one in ARM code
# with APCS frames (tests/gt/gt_apcs.c) and one whose routine has only an
# .ARM.exidx entry (tests/gt/gt_ehabi.c); the dynamic ones
# run against Debian's armhf libc (build/arm/root) with the table made from
# its debug file, as make demo does.  tests/gt/gt_v8.S lays out builtins
# as V8 embeds them in libnode; in the dynamic builds, which export its
# accessors, the program marks them as JIT code as uwprof record --jit
# v8-arm does, and routine v8-leaf calls its frameless leaf through a
# pointer as C++ calls V8's MemCopy (exact only by table/v8builtins.c's
# rows: V8's frame walk alone stops there).  tests/gt/gt_cfitail.S has
# CFI in clang's shape, prologue rows only, before epilogues that pop
# and tail-call (routine cfi-tail).  tests/gt/gt_plt0.S enters a
# resolver as glibc's PLT0 enters _dl_runtime_resolve, with the return
# address on the stack (routine plt0).  Routine clone starts
# threads with the C library's clone wrapper and signals them at once:
# samples of caller and thread right after its system call are exact only
# by the clone marker's rows (docs/FORMAT.md); qemu-user delivers the
# thread no signal while its caller has a timer of its own, so under
# GT_TIMER=thread each build runs twice: every other routine on thread
# timers, then clone alone on the prof timer.  The stripped builds (gcc-stripped,
# clang-stripped: dynamic; gcc-staticstripped) have no symbols, no CFI and
# no unwind tables in the program's own code, as distributions ship
# programs: the table comes from the stripped file alone, through
# function discovery, and a routine passes when no frame is wrong
# (stops are refusals, counted).
#
#   GT_SAMPLES   samples per routine and build (default 1000; the full
#                run, make ground-truth, takes 100000)
#   GT_VARIANTS  default "gcc-static gcc-dynamic clang-static clang-dynamic
#                gcc-libgcc_s gcc-stripped clang-stripped gcc-staticstripped"
#                (libgcc_s: dynamic, -shared-libgcc, dividing in Debian's
#                stripped libgcc_s.so.1)
#   GT_TIMER     thread (a 10 kHz timer per thread, the default; routine
#                clone on ITIMER_PROF in a run of its own) or prof
#                (ITIMER_PROF for all: a few hundred samples a second)
#   GT_SINGLESTEP 1: qemu translates one instruction per block, so samples
#                land on every instruction, not mostly at block starts
#                (epilogues between a pop and its branch are sampled;
#                tests/host/ground_truth_step.sh)
#   GT_OUT       where builds, tables and logs go (default build/gt)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
top=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$top/build}
UWPROF=${UWPROF:-$BUILD/host/uwprof}
samples=${GT_SAMPLES:-1000}
variants=${GT_VARIANTS:-gcc-static gcc-dynamic clang-static clang-dynamic gcc-libgcc_s gcc-stripped clang-stripped gcc-staticstripped}
out=${GT_OUT:-$BUILD/gt}
root=$BUILD/arm/root
dbgdir=$BUILD/arm/dbg/usr/lib/debug
libc=$root/lib/arm-linux-gnueabihf/libc.so.6
mkdir -p "$out"

if ! command -v qemu-arm-static >/dev/null; then
	skip "qemu-arm-static not installed (make setup)"
	finish
	exit
fi

# -singlestep, renamed -one-insn-per-tb by qemu 8.1
step=-singlestep
qemu-arm-static --help | grep -q -- '^-one-insn-per-tb' && step=-one-insn-per-tb

# The C library's table and symbols, for the dynamic builds
if [ ! -f "$libc" ] || [ ! -d "$dbgdir" ]; then
	fail "Debian's armhf libc or its debug file is not unpacked (make setup)"
	finish
	exit
fi
# (and the loader's: first calls through the PLT resolve in it)
dynlibs=()
for lib in libc.so.6 ld-linux-armhf.so.3; do
	f=$root/lib/arm-linux-gnueabihf/$lib
	bid=$(arm-linux-gnueabihf-readelf -n "$f" | awk '/Build ID/ { print $3 }')
	"$UWPROF" table "$f" --debug-dir "$dbgdir" --prologue-analysis \
		-o "$out/$lib.uwt" >/dev/null || fail "uwprof table $lib"
	arm-linux-gnueabihf-nm -n "$dbgdir/.build-id/${bid:0:2}/${bid:2}.debug" \
		>"$out/$lib.syms"
	dynlibs+=(--table "$lib=$out/$lib.uwt" --syms "$lib=$out/$lib.syms")
done
# Debian's libgcc_s.so.1 as shipped, stripped to .dynsym without mapping
# symbols: the libgcc_s build (-shared-libgcc) divides there.
lgs=$BUILD/arm/cxx/lib/arm-linux-gnueabihf/libgcc_s.so.1
lgslibs=()
if [ -f "$lgs" ]; then
	"$UWPROF" table "$lgs" --prologue-analysis -o "$out/libgcc_s.so.1.uwt" \
		>/dev/null || fail "uwprof table libgcc_s.so.1"
	arm-linux-gnueabihf-nm -D -n "$lgs" >"$out/libgcc_s.so.1.syms"
	lgslibs=(--table "libgcc_s.so.1=$out/libgcc_s.so.1.uwt"
		 --syms "libgcc_s.so.1=$out/libgcc_s.so.1.syms")
fi

srcs=("$top/tests/gt/gt.c" "$top/unwind_v2.c" "$top/tools/uwprof/lib/uwt.c"
      "$top/tools/uwprof/lib/regfile.c" "$top/tools/uwprof/lib/v8blob.c"
      "$top/tools/uwprof/lib/elf.c" "$top/tools/uwprof/lib/zip.c"
      "$top/tests/gt/gt_v8.S" "$top/tests/gt/gt_cfitail.S"
      "$top/tests/gt/gt_plt0.S")
inc=(-D_GNU_SOURCE -I"$top" -I"$top/tools/include" -I"$top/tools/uwprof")
for v in $variants; do
	cc=${v%-*} link=${v#*-} exe=$out/gt-$v
	case $cc in
	gcc) cmd=(arm-linux-gnueabihf-gcc) ;;
	clang) cmd=(clang --target=arm-linux-gnueabihf -march=armv7-a
		    -mfloat-abi=hard) ;;
	esac
	flags=(-O2 -g -mthumb -pthread -Wall)
	nocfi=(-g0 -fno-unwind-tables -fno-asynchronous-unwind-tables)
	stripped=false
	case $link in
	stripped) stripped=true link=dynamic ;;
	staticstripped) stripped=true link=static ;;
	esac
	$stripped && flags=(-O2 -mthumb -pthread -Wall "${nocfi[@]}")
	[ "$link" = static ] && flags+=(-static)
	# gt_v8.S's accessors, where uwprof finds V8's builtins by
	[ "$link" = static ] || flags+=(-Wl,--export-dynamic-symbol='_ZN2v88internal*')
	if [ "$link" = libgcc_s ]; then
		[ ${#lgslibs[@]} -gt 0 ] || { fail "$v: no Debian libgcc_s.so.1 (make setup)"; continue; }
		flags+=(-shared-libgcc)
	fi
	# one file with no unwind information, as libc.a's C code, one
	# in ARM code with APCS frames (gcc's alone: clang has no
	# -mapcs-frame), as Debian's 5.10 vDSO, and one whose routine only
	# its exidx entry describes (in the stripped builds too)
	if ! "${cmd[@]}" -O2 -mthumb -g0 -fno-unwind-tables \
		-fno-asynchronous-unwind-tables -c -o "$exe.nocfi.o" \
		"$top/tests/gt/gt_nocfi.c" 2>"$out/$v.cc.log" ||
	   ! "${cmd[@]}" -O2 -mthumb -g0 -funwind-tables -c \
		-o "$exe.ehabi.o" "$top/tests/gt/gt_ehabi.c" 2>>"$out/$v.cc.log" ||
	   ! arm-linux-gnueabihf-gcc -O2 -marm -mapcs-frame -g0 \
		-fno-unwind-tables -fno-asynchronous-unwind-tables -c \
		-o "$exe.apcs.o" "$top/tests/gt/gt_apcs.c" 2>>"$out/$v.cc.log" ||
	   ! "${cmd[@]}" "${flags[@]}" "${inc[@]}" -o "$exe" "${srcs[@]}" \
		"$exe.nocfi.o" "$exe.apcs.o" "$exe.ehabi.o" \
		2>>"$out/$v.cc.log"; then
		fail "$v: does not build: $(head -n 3 "$out/$v.cc.log")"
		continue
	fi
	# judged by the symbols of the program as built, tabled and run
	# stripped
	arm-linux-gnueabihf-nm -n "$exe" >"$exe.syms"
	run=$exe
	if $stripped; then
		run=$exe.stripped
		arm-linux-gnueabihf-strip -o "$run" "$exe" ||
			{ fail "$v: strip"; continue; }
	fi
	"$UWPROF" table "$run" --prologue-analysis --stats -o "$exe.uwt" \
		--report "$out/$v.report" >"$out/$v.stats" ||
		{ fail "$v: uwprof table"; continue; }
	$stripped && echo "#   $v: $(grep '^.text covered' "$out/$v.stats")"
	# the written-out shapes of gt_nocfi.c are analysed, not refused
	# (stripped: found by discovery, their data found by their loads)
	# (each twice: gt_apcs.c has them too)
	# (gt_tail_stub's and gt_tail_stub2's walks end at their symbols'
	# sizes: in a stripped build their helpers stay refused)
	fns="gt_fp_local gt_r7_local gt_arm_switch gt_noret gt_guard_ret
	     gt_guard_alloca gt_guard_tail gt_tail_sum gt_ptr_leaf gt_thunk
	     gt_neon_const gt_ptr_sched gt_push8 gt_ptr_between gt_pool_pick
	     gt_adr_switch gt_fill_call gt_fill_next
	     gt_push_iter"
	$stripped || fns="$fns gt_tail_stub gt_tail_stub2"
	for fn in $fns; do
		n=0
		for a in $(awk -v f=$fn '$3 == f { print $1 }' "$exe.syms"); do
			a=$(printf '0x%x' $((16#$a & ~1)))
			n=$((n + 1))
			awk -v a=$a '$2 == a && $4 == "prologue-analysis" { f = 1 }
				END { exit !f }' "$out/$v.report" ||
				fail "$v: $fn ($a) not analysed: $(awk -v a=$a '$2 == a' "$out/$v.report" | head -n 1)"
		done
		[ $n -eq 2 ] || fail "$v: $fn: $n copies in the program, not 2"
	done
	# the code the dynamic section's DT_INIT and DT_FINI name (the
	# .init and .fini sections, which only the loader calls) is
	# analysed too (stripped: found from those entries alone)
	for tag in INIT FINI; do
		a=$(arm-linux-gnueabihf-readelf -d "$run" |
			awk -v t="($tag)" '$2 == t { print $3 }')
		[ -n "$a" ] || continue
		a=$(printf '0x%x' $((a & ~1)))
		awk -v a=$a '$2 == a && $4 == "prologue-analysis" { f = 1 }
			END { exit !f }' "$out/$v.report" ||
			fail "$v: DT_$tag's function ($a) not analysed: $(awk -v a=$a '$2 == a' "$out/$v.report" | head -n 1)"
	done
	timer=${GT_TIMER:-thread}
	args=(--samples "$samples" --seconds $((60 + samples / 10))
	      --table main="$exe.uwt" --syms main="$exe.syms")
	$stripped && args+=(--early-ok)
	qemu=(qemu-arm-static)
	[ "${GT_SINGLESTEP:-0}" = 1 ] && qemu+=("$step")
	if [ "$link" != static ]; then
		qemu+=(-L "$root")
		args+=("${dynlibs[@]}")
	fi
	if [ "$link" = libgcc_s ]; then
		qemu+=(-E "LD_LIBRARY_PATH=$(dirname "$lgs")")
		args+=("${lgslibs[@]}")
	fi
	logs=("$out/$v.log")
	"${qemu[@]}" "$run" "${args[@]}" --timer "$timer" >"$out/$v.log" 2>&1
	if [ "$timer" = thread ]; then
		logs+=("$out/$v.clone.log")
		"${qemu[@]}" "$run" "${args[@]}" --timer prof --only clone \
			>"$out/$v.clone.log" 2>&1
	fi
	# one result per routine and build (and run), with the program's
	# own reasons
	for log in "${logs[@]}"; do
		while IFS= read -r line; do
			case $line in
			"ok "*) ok "$v: ${line#ok * - }" ;;
			"not ok "*) fail "$v: ${line#not ok * - }" ;;
			"# "*) echo "#   $v: ${line#\# }" ;;
			esac
		done <"$log"
		grep -q '^gt: ' "$log" ||
			fail "$v: the program did not finish: $(tail -n 3 "$log")"
	done
done

finish
