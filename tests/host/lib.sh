# SPDX-License-Identifier: GPL-2.0
# Helpers for shell tests: ok/fail/skip record one result each, finish prints
# "NAME: N passed, N failed, N skipped" and exits 1 if anything failed.
th_passed=0 th_failed=0 th_skipped=0 th_n=0

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
	tail -n 20 "$tmp/vm.log" | sed 's/^/#   /'
	finish
	exit 1
}

# need_vm WHAT HINT FILE...: what a VM test needs before it boots.  The
# module is built first if the kernel is there and the module is not; a
# FILE still missing skips the whole script ("WHAT: no FILE (HINT)").
# Needs $top and $BUILD.
need_vm() {
	local what=$1 hint=$2 need
	shift 2
	[ -e "$top/uwprof.ko" ] || [ ! -e "$BUILD/kernel/vmlinuz" ] ||
		make -C "$top" --no-print-directory module >/dev/null 2>&1
	for need in "$BUILD/kernel/vmlinuz" "$top/uwprof.ko" "$@"; do
		[ -e "$need" ] && continue
		skip "$what: no $need ($hint)"
		finish
		exit 0
	done
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
