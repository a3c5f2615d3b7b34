# SPDX-License-Identifier: GPL-2.0
# Helpers for shell tests: ok/fail/skip record one result each, finish prints
# "NAME: N passed, N failed, N skipped" and exits 1 if anything failed.
th_passed=0 th_failed=0 th_skipped=0 th_n=0

# th_init: what the VM test scripts (and host tests that want it) start
# with.  here (tests/host), top (the tree), BUILD and UWPROF (the host
# command) unless set, arm_uwprof (the static armhf one the VM runs), and
# tmp, a fresh directory removed at exit unless KEEP_TMP (or KEEP, its
# older name) is set: then its path is printed, to look into after a
# failure.
th_init() {
	here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	top=$(cd "$here/../.." && pwd)
	BUILD=${BUILD:-$top/build}
	UWPROF=${UWPROF:-$BUILD/host/uwprof}
	arm_uwprof=$BUILD/arm/uwprof
	tmp=$(mktemp -d)
	trap 'if [ -n "${KEEP_TMP:-${KEEP:-}}" ]; then echo "# kept $tmp"; else rm -rf "$tmp"; fi' EXIT
}

ok() { th_n=$((th_n + 1)); th_passed=$((th_passed + 1)); echo "ok $th_n - $*"; }
fail() { th_n=$((th_n + 1)); th_failed=$((th_failed + 1)); echo "not ok $th_n - $*"; }
skip() { th_n=$((th_n + 1)); th_skipped=$((th_skipped + 1)); echo "ok $th_n - $* # SKIP"; }

# expect NAME EXPECTED ACTUAL
expect() {
	if [ "$2" = "$3" ]; then ok "$1"; else
		fail "$1"
		diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") | sed 's/^/#   /'
	fi
}

# vm_log_tail LOG N: a failed VM run's diagnostics: its log's last N
# lines, or from the kernel's first report on where it reported a problem
# (scripts/kernel-problems.sh prints the report whole, last), so that its
# call trace is not cut.
vm_log_tail() {
	local from n=$2
	from=$(grep -n '^kernel-problems.sh: the first report' "$1" | cut -d: -f1)
	[ -z "$from" ] || n=$(( $(wc -l <"$1") - from + 1 ))
	[ "$n" -ge "$2" ] || n=$2
	tail -n "$n" "$1" | sed 's/^/#   /'
}

# run_vm TIMEOUT ARGS...: $tmp/run.sh in the VM as /run.sh, with ARGS
# (--add ...) for scripts/vm.sh, /out copied back to $tmp/out and the
# console kept in $tmp/vm.log.  A failed run (or a kernel warning) fails
# the test and ends the script.  Needs $top and $tmp.
run_vm() {
	local timeout=$1
	shift
	"$top/scripts/vm.sh" --timeout "$timeout" --out "$tmp/out" "$@" \
		--add "$tmp/run.sh:/run.sh" -- /run.sh >"$tmp/vm.log" 2>&1 &&
		return 0
	fail "the VM run failed (or the kernel warned)"
	vm_log_tail "$tmp/vm.log" 20
	finish
	exit 1
}

# need_vm WHAT HINT FILE...: what a VM test needs before it boots.  The
# module is built first if the kernel scripts/vm.sh boots ($KERNEL) is
# there and the module is not; a FILE still missing skips the whole
# script ("WHAT: no FILE (HINT)").  Needs $top and $BUILD.
need_vm() {
	local what=$1 hint=$2 need kernel
	shift 2
	kernel=$("$top/scripts/vm.sh" --print-kernel)
	[ -e "$top/uwprof.ko" ] || [ ! -e "$kernel" ] ||
		make -C "$top" --no-print-directory module >/dev/null 2>&1
	for need in "$kernel" "$top/uwprof.ko" "$@"; do
		[ -e "$need" ] && continue
		skip "$what: no $need ($hint)"
		finish
		exit 0
	done
}

# build_lld_fixture OUT: the report fixture (tests/data/report/fixture.c)
# built by clang and linked by lld, whose executable segment shares a file
# page with the read-only one and runs 0x10000 above its file offsets.
# Fails the test with clang's words (and returns 1) if it cannot be built.
# Needs $top.
build_lld_fixture() {
	clang --target=arm-linux-gnueabihf -march=armv7-a -mfloat-abi=hard -mthumb \
		-fuse-ld=lld -O2 -g -funwind-tables -static-libgcc -Wl,--build-id \
		-o "$1" "$top/tests/data/report/fixture.c" 2>"$1.err" && return 0
	fail "build the fixture with clang and lld: $(cat "$1.err")"
	return 1
}

# rate_tol OK1 N1 OK2 N2 MIN: how far apart two sampled success rates
# (OK1 of N1, OK2 of N2) may be, in tenths of a point: MIN, or three
# standard deviations of the difference of two rates drawn from one
# (their pooled rate), if larger.  Runs of the same program and tables
# sample different moments of it: fewer samples, more spread.
rate_tol() {
	awk -v a="$1" -v b="$2" -v c="$3" -v e="$4" -v t="$5" '
		BEGIN { q = (a + c) / (b + e)
			s = 3 * sqrt(q * (1 - q) * (1 / b + 1 / e)) * 1000
			printf "%d", (s > t ? s + 0.999 : t) }'
}

# no_table CHECKFILE: the samples that stopped no-table at code of a mapped
# file, by the checker's output (bench/perf/analyze.py --check): code
# whose table was missing or came late.  A no-table stop at an address in
# no mapping is a wrong frame before it, which the checker fails anyway
# (the generator's rows at an EHABI-only function's first instruction,
# met in bursts when the process faults there: 72 samples at libc's
# fclose+0 in one run).
no_table() {
	awk '$1 == "where" && $3 == "no-table" && $4 != "unmapped" { n += $NF }
		END { print n + 0 }' "$1"
}

# late_uploads LOG: the samples record counted stopped no-table in code
# whose table (--tables, the cache) it uploaded after them; "" if the
# summary has no such line
late_uploads() {
	sed -n 's/^uwprof record: \([0-9]*\) samples stopped no-table in code whose table (--tables, the cache) was uploaded after them$/\1/p' "$1"
}

finish() {
	echo "$(basename "$0"): $th_passed passed, $th_failed failed, $th_skipped skipped"
	[ "$th_failed" -eq 0 ]
}

# need_checker: the call-site checker (bench/perf/analyze.py) reads ELF
# files and decodes instructions with these; without them the script fails.
need_checker() {
	/usr/bin/python3 -c 'import capstone, elftools' 2>/dev/null && return 0
	fail "the checker needs python3-capstone and python3-pyelftools (scripts/packages.txt)"
	finish
	exit 1
}
