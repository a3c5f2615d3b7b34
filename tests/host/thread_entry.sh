#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Outermost frames the table generator proves: the child path of a clone
# wrapper (Debian's libc.so.6 with its debug file, and a static program's
# own copy) ends the walk as root while the parent's path unwinds, and a
# clang noreturn main's calls end it as noreturn while a leaf called from
# there is still unwound through lr.  Addresses come from objdump's
# disassembly of the same bytes, not from the generator.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
top=$(cd "$here/../.." && pwd)
UWPROF=${UWPROF:-$top/build/host/uwprof}
BUILD=${BUILD:-$top/build}
OBJDUMP=arm-linux-gnueabihf-objdump
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
head -c 256 /dev/zero >"$tmp/stack"

unwind() {
	"$UWPROF" unwind --table "$1" --stack "$tmp/stack" \
		--stack-base 0x7e000000 "${@:2}" 2>&1
}

# The disassembly of symbol $2 in $1 (Thumb), up to the next symbol.
disasm() {
	local start
	start=$(arm-linux-gnueabihf-nm "${3:-$1}" | awk -v s="$2" '$3 == s { print $1; exit }')
	[ -n "$start" ] || return 1
	$OBJDUMP -d -M force-thumb "$1" --start-address=0x$start \
		--stop-address=$(printf '0x%x' $((0x$start + 0x60))) |
		awk -F'\t' '/^ *[0-9a-f]+:/ { sub(/:$/, "", $1); gsub(/ /, "", $1); print $1 "\t" $3 "\t" $4 }'
}

# clone_case NAME ELF TABLE [SYMFILE]: the child path is root, the parent
# returns through lr.
clone_case() {
	local name=$1 elf=$2 table=$3 sym=${4:-$2} d svc child ret bxlr addr after
	d=$(disasm "$elf" __clone "$sym") || { fail "$name: no __clone symbol"; return; }
	svc=$(awk -F'\t' '$2 ~ /^svc/ { print $1; exit }' <<<"$d")
	# disassembly lines come in address order: state, not arithmetic
	child=$(awk -F'\t' '$2 ~ /^svc/ { s = 1; next } s && $2 ~ /^(beq|cbz)/ { split($3, t, " "); print t[1]; exit }' <<<"$d")
	ret=$(awk -F'\t' -v c="$child" '$1 == c { s = 1 } s && $2 ~ /^blx/ { print $1; exit }' <<<"$d")
	bxlr=$(awk -F'\t' '$2 ~ /^svc/ { s = 1; next } s && $2 ~ /^bx/ && $3 ~ /lr/ { print $1; exit }' <<<"$d")
	if [ -z "$svc" ] || [ -z "$child" ] || [ -z "$ret" ] || [ -z "$bxlr" ]; then
		fail "$name: __clone's shape not found (svc '$svc' child '$child' blx '$ret' bx lr '$bxlr')"
		return
	fi
	# The return address of the child's call into start_thread.
	ret=$(printf '0x%x' $((0x$ret + 3)))
	expect "$name: a thread's outermost frame ends as root" "#0 $(printf '0x%08x' $ret)
stop: root" "$(unwind "$table" --reg pc=$ret --reg lr=0x1235 --max-depth 8)"
	# The instruction after the system call runs in the caller and in the
	# new thread (whose lr is a stale copy), told apart by r0, the call's
	# result: 0 in the thread, its id in the caller.  Registers the kernel
	# saved on entry may hold the caller's flags there, which may be 0.
	after=$(printf '0x%x' $((0x$svc + 3)))
	expect "$name: right after the clone system call r0 0 is the new thread" \
		"#0 $(printf '0x%08x' $after)
stop: root" "$(unwind "$table" --reg pc=$after --reg lr=0x1235 --reg r0=0)"
	expect "$name: right after the clone system call r0 0 in the kernel refuses" \
		"#0 $(printf '0x%08x' $after)
stop: refused" "$(unwind "$table" --reg pc=$after --reg lr=0x1235 --reg r0=0 --kernel-regs)"
	expect "$name: right after the clone system call r0 > 0 is the caller" \
		"#0 $(printf '0x%08x' $after)
#1 0x00001235
stop: no-table" "$(unwind "$table" --reg pc=$after --reg lr=0x1235 --reg r0=4242)"
	expect "$name: right after the clone system call r0 < 0 is the caller" \
		"#0 $(printf '0x%08x' $after)
#1 0x00001235
stop: no-table" "$(unwind "$table" --reg pc=$after --reg lr=0x1235 --reg r0=0xfffffff5 --kernel-regs)"
	expect "$name: the parent's return after clone goes through lr" "#0 $(printf '0x%08x' 0x$bxlr)
#1 0x00001235
stop: no-table" "$(unwind "$table" --reg pc=0x$bxlr --reg lr=0x1235)"
	addr=$(arm-linux-gnueabihf-nm "$sym" | awk '$3 == "__clone" { print $1; exit }')
	addr=$(printf '%x' $((0x$addr)))
	if "$UWPROF" dump "$table" | grep -q "^0x$addr\.\."; then
		ok "$name: __clone has rows of its own"
	else
		fail "$name: __clone has no rows of its own"
	fi
}

# Debian's libc.so.6 with libc6-dbg's debug file (as make demo builds it).
libc=$BUILD/arm/root/lib/arm-linux-gnueabihf/libc.so.6
dbgdir=$BUILD/arm/dbg/usr/lib/debug
if [ -f "$libc" ] && [ -d "$dbgdir" ]; then
	"$UWPROF" table "$libc" --debug-dir "$dbgdir" --prologue-analysis \
		-o "$tmp/libc.uwt" --report "$tmp/libc.rep" >/dev/null
	bid=$(arm-linux-gnueabihf-readelf -n "$libc" | awk '/Build ID/ { print $3 }')
	clone_case "libc.so.6" "$libc" "$tmp/libc.uwt" \
		"$dbgdir/.build-id/${bid:0:2}/${bid:2}.debug"
	expect "libc.so.6: __clone's source is thread-entry" "thread-entry" \
		"$(awk '$1 == "__clone" { print $4; exit }' "$tmp/libc.rep")"
	# The loader's main thread runs the constructors from _dl_start_user
	# on the process's first frame.
	ld=$(dirname "$libc")/ld-linux-armhf.so.3
	"$UWPROF" table "$ld" --debug-dir "$dbgdir" -o "$tmp/ld.uwt" \
		--report "$tmp/ld.rep" >/dev/null
	expect "ld.so: _dl_start_user is an outermost frame" "root" \
		"$(awk '$1 == "_dl_start_user" { print $4; exit }' "$tmp/ld.rep")"
else
	skip "libc.so.6 or its debug file not unpacked (make setup)"
fi

# A static pthread program: glibc's __clone linked in.
cat >"$tmp/thr.c" <<'C'
#include <pthread.h>
static void *worker(void *arg) { return arg; }
int main(void)
{
	pthread_t t;

	if (pthread_create(&t, 0, worker, 0))
		return 1;
	return pthread_join(t, 0);
}
C
if arm-linux-gnueabihf-gcc -O2 -g -mthumb -static -pthread -o "$tmp/thr" \
	"$tmp/thr.c" 2>"$tmp/cc.log"; then
	"$UWPROF" table "$tmp/thr" --prologue-analysis -o "$tmp/thr.uwt" \
		>/dev/null
	clone_case "static" "$tmp/thr" "$tmp/thr.uwt"
else
	fail "static pthread program does not build: $(head -n 3 "$tmp/cc.log")"
fi

# The other C libraries' shapes, written here: musl's ARM __clone tests
# the result with "tst r0, r0" and calls the start routine from its child
# path; bionic's Thumb __bionic_clone uses "movs r0, r0" and pops the
# start routine's arguments.  The labels name the child paths and the
# parents' returns.
cat >"$tmp/clones.S" <<'ASM'
	.syntax unified
	.text
	.arm
	.globl __clone
	.type __clone, %function
__clone:
	stmfd sp!, {r4, r5, r6, r7}
	mov r7, #120
	mov r6, r3
	mov r5, r0
	mov r0, r2
	svc 0
	tst r0, r0
	beq musl_child
	ldmfd sp!, {r4, r5, r6, r7}
musl_ret:
	bx lr
musl_child:
	mov r0, r6
	bl 3f
2:	mov r7, #1
	svc 0
	b 2b
3:	bx r5
	.size __clone, .-__clone

	.thumb
	.globl __bionic_clone
	.type __bionic_clone, %function
	.thumb_func
__bionic_clone:
	mov ip, sp
	push {r4, r5, r6, r7}
	ldmia ip, {r4, r5, r6}
	mov r7, #120
	svc #0
	movs r0, r0
	beq bionic_child
	pop {r4, r5, r6, r7}
bionic_ret:
	bx lr
bionic_child:
	mov fp, #0
	mov lr, #0
	pop {r0, r1}
	bx r4
	.size __bionic_clone, .-__bionic_clone

	.globl _start
	.type _start, %function
	.thumb_func
_start:
	bl __bionic_clone
	b _start
	.size _start, .-_start
ASM
if arm-linux-gnueabihf-gcc -c "$tmp/clones.S" -o "$tmp/clones.o" &&
	arm-linux-gnueabihf-ld -o "$tmp/clones" "$tmp/clones.o"; then
	"$UWPROF" table "$tmp/clones" -o "$tmp/clones.uwt" >/dev/null
	sym() { arm-linux-gnueabihf-nm "$tmp/clones" | awk -v s="$1" '$3 == s { print "0x" $1 }'; }
	for lib in musl bionic; do
		child=$(sym ${lib}_child) ret=$(sym ${lib}_ret)
		pc=$(printf '0x%08x' $((child + 4)))
		expect "$lib: the child path is the outermost frame" "#0 $pc
stop: root" "$(unwind "$tmp/clones.uwt" --reg pc=$pc --reg lr=0x1235)"
		expect "$lib: the parent returns through lr" "#0 $(printf '0x%08x' $ret)
#1 0x00001235
stop: no-table" "$(unwind "$tmp/clones.uwt" --reg pc=$ret --reg lr=0x1235)"
	done
else
	fail "the clone shapes do not assemble"
fi

# clang's noreturn main keeps its return address nowhere.
cat >"$tmp/nr.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline, noreturn)) static void done(int n)
{
	printf("%d\n", n);
	exit(n & 1);
}
__attribute__((noinline)) int work(int n)
{
	return n * 7 + (n >> 3);
}
int main(int argc, char **argv)
{
	int n = 0;

	for (int i = 0; i < argc * 1000; i++)
		n += work(i + (argv[0][0] & 3));
	done(n);
}
C
if clang --target=arm-linux-gnueabihf -march=armv7-a -mthumb -mfloat-abi=hard \
	-O2 -g -o "$tmp/nr" "$tmp/nr.c" 2>"$tmp/cc.log"; then
	stats=$("$UWPROF" table "$tmp/nr" -o "$tmp/nr.uwt" --stats)
	if grep -q '^calls that never return (return address saved nowhere): [1-9]' <<<"$stats"; then
		ok "clang noreturn main: its calls are marked"
	else
		fail "clang noreturn main: no call marked: $stats"
	fi
	d=$(disasm "$tmp/nr" main)
	call=$(awk -F'\t' '$2 ~ /^bl/ && $3 ~ /<work>/ { print $1; exit }' <<<"$d")
	work=$(arm-linux-gnueabihf-nm "$tmp/nr" | awk '$3 == "work" { print $1 }')
	if [ -n "$call" ] && [ -n "$work" ]; then
		ra=$(printf '0x%08x' $((0x$call + 4 + 1)))
		expect "clang noreturn main: a sample in work ends complete in main" \
			"#0 $(printf '0x%08x' 0x$work)
#1 $ra
stop: noreturn" "$(unwind "$tmp/nr.uwt" --reg pc=0x$work --reg lr=$ra)"
	else
		fail "clang noreturn main: no call to work found in main"
	fi
	# A leaf that returns normally is still unwound through lr.
	expect "a leaf is unwound through lr" "#0 $(printf '0x%08x' 0x$work)
#1 0x00001235
stop: no-table" "$(unwind "$tmp/nr.uwt" --reg pc=0x$work --reg lr=0x1235)"
else
	fail "clang noreturn program does not build: $(head -n 3 "$tmp/cc.log")"
fi

# A Cortex-A8 erratum veneer (GNU ld moves a 32-bit branch that straddles a
# page boundary to a stub past the code): the function branches out to
# "bls 1f; b.w back; 1: b.w target" with its frame up, and both ends come
# back into it.  The function keeps its rows, in that frame.
cat >"$tmp/veneer.S" <<'S'
	.syntax unified
	.thumb
	.text
	.global f
	.type f, %function
	.thumb_func
f:
	push {r4, lr}
	cmp r0, #1
	b.w stub
.Lback:
	movs r0, #2
	pop {r4, pc}
.Ltarget:
	movs r0, #3
	pop {r4, pc}
	.size f, .-f
	.type stub, %function
	.thumb_func
stub:
	bls.n 1f
	b.w .Lback
1:	b.w .Ltarget
	.size stub, .-stub
	.global _start
	.type _start, %function
	.thumb_func
_start:
	bl f
	b .
	.size _start, .-_start
S
if arm-linux-gnueabihf-gcc -nostdlib -static -o "$tmp/veneer" "$tmp/veneer.S" 2>"$tmp/cc.log"; then
	"$UWPROF" table "$tmp/veneer" --prologue-analysis -o "$tmp/veneer.uwt" >/dev/null
	d=$(disasm "$tmp/veneer" f)
	# the two instructions the stub branches back to
	back=$(awk -F'\t' '$2 ~ /^b\.w/ { s = 1; next } s { print $1; exit }' <<<"$d")
	tgt=$(awk -F'\t' '$2 ~ /^pop/ { s = 1; next } s { print $1; exit }' <<<"$d")
	printf '\x11\x11\x11\x11\x35\x12\x00\x00' >"$tmp/vstack"
	head -c 248 /dev/zero >>"$tmp/vstack"
	for pc in $back $tgt; do
		expect "erratum veneer: after the branch back (0x$pc) the frame is unwound" \
			"#0 $(printf '0x%08x' 0x$pc)
#1 0x00001235
stop: no-table" "$("$UWPROF" unwind --table "$tmp/veneer.uwt" --stack "$tmp/vstack" \
			--stack-base 0x7e000000 --reg sp=0x7e000000 --reg pc=0x$pc \
			--reg lr=0x9999 2>&1)"
	done
else
	fail "veneer fixture does not build: $(head -n 3 "$tmp/cc.log")"
fi

finish
