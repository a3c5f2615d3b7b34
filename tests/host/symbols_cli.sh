#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Where report's names come from (tools/uwprof/report/symbols.c, libdwfl): a C++
# program (armhf, Thumb-2, -O2 -g) whose functions are sampled through
# data files written by uwdata.py, named from
#   - the unstripped file: C++ names demangled (and kept with --no-demangle);
#   - a stripped copy with .gnu_debuglink to a debug file beside it;
#   - a stripped copy with MiniDebugInfo (.gnu_debugdata) only;
#   - a stripped copy whose debug file only a debuginfod server has
#     (DEBUGINFOD_URLS, a local HTTP server);
#   - with --lines, inline chains, against binutils' addr2line -i.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
UWPROF=${UWPROF:-$here/../../build/host/uwprof}
CROSS=arm-linux-gnueabihf-
tmp=$(mktemp -d)
srv=
trap '[ -n "$srv" ] && kill "$srv" 2>/dev/null; rm -rf "$tmp"' EXIT

command -v ${CROSS}g++ >/dev/null || { skip "no ${CROSS}g++"; finish; exit; }

cat >"$tmp/prog.cc" <<'CC'
#include <cstdio>
#include <cstdlib>
namespace geo {
struct Shape {
	virtual ~Shape() {}
	virtual long area(long k) const = 0;
};
struct Square : Shape {
	long s;
	explicit Square(long v) : s(v) {}
	long area(long k) const override;
};
__attribute__((noinline)) long Square::area(long k) const
{
	return s * s + k;
}
}
static inline __attribute__((always_inline)) long mix(long x)
{
	for (int i = 0; i < 8; i++)
		x = x * 2654435761u + (x >> 7);
	return x;
}
__attribute__((noinline)) long churn(const geo::Shape *sh, long n)
{
	long t = 0;
	for (long i = 0; i < n; i++)
		t += mix(sh->area(i) ^ t);
	return t;
}
int main(int argc, char **argv)
{
	geo::Square sq(argc + 3);
	std::printf("%ld\n", churn(&sq, argc > 1 ? std::atol(argv[1]) : 10));
	return 0;
}
CC
if ! ${CROSS}g++ -O2 -g -mthumb -no-pie -o "$tmp/prog" "$tmp/prog.cc" 2>"$tmp/err"; then
	fail "build the C++ program"; sed 's/^/#   /' "$tmp/err"; finish; exit
fi
bid=$(${CROSS}readelf -n "$tmp/prog" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
# link address of a symbol (Thumb bit cleared)
addr_of() { ${CROSS}nm "$tmp/prog" | awk -v s="$1" '$3 == s { print $1 }' | head -n 1; }
area=$(addr_of _ZNK3geo6Square4areaEl)
churn=$(addr_of _Z5churnPKN3geo5ShapeEl)
[ -n "$area" ] && [ -n "$churn" ] || { fail "symbols in the program"; finish; exit; }

# A data file: samples in Square::area and churn, the program mapped at its
# link address (non-PIE), under PATH (the file report looks for).
mkdata() {	# mkdata OUT PATH ADDR...
	local out=$1 path=$2
	shift 2
	HERE=$here python3 - "$out" "$path" "$bid" "$@" <<'EOF'
import sys
sys.path.insert(0, __import__('os').environ['HERE'])
import uwdata
out, path, bid = sys.argv[1:4]
w = uwdata.Writer(out)
w.process(100, path)
w.mapping(100, 0x10000, 0x20000, 0, path, bias=0, build_id=bytes.fromhex(bid))
for i, a in enumerate(sys.argv[4:]):
    w.sample(100, 100, 1000000000 + i, [int(a, 16) | 1])
w.close()
EOF
}
a2=$(printf '%x' $((0x$area + 2)))
c2=$(printf '%x' $((0x$churn + 2)))
names() { "$UWPROF" report -q -f folded "$@" | sed 's/ [0-9]*$//' | sort | tr '\n' '|'; }

mkdata "$tmp/plain.data" "$tmp/prog" "$a2" "$c2"
expect "unstripped: C++ names demangled" \
	"churn(geo::Shape const*, long)|geo::Square::area(long) const|" \
	"$(names "$tmp/plain.data")"
expect "--no-demangle keeps the mangled names" \
	"_Z5churnPKN3geo5ShapeEl|_ZNK3geo6Square4areaEl|" \
	"$(names --no-demangle "$tmp/plain.data")"

# The PLT's stubs, named as objdump and perf name them ("atol@plt"), in
# the program and in a stripped copy: a sample inside each stub objdump
# names (the Thumb "bx pc" in front of some included).
plt=$(${CROSS}objdump -d "$tmp/prog" |
	sed -n 's/^\([0-9a-f]*\) <\(.*@plt\)>:$/\1 \2/p')
want=$(awk '{ print $2 }' <<<"$plt" | sort | tr '\n' '|')
mkdir -p "$tmp/st"
${CROSS}strip --strip-all -o "$tmp/st/prog" "$tmp/prog"
inside=()
while read -r a _; do inside+=("$(printf '%x' $((0x$a + 4)))"); done <<<"$plt"
for f in "$tmp/prog" "$tmp/st/prog"; do
	kind=unstripped
	[ "$f" = "$tmp/prog" ] || kind=stripped
	mkdata "$tmp/plt.data" "$f" "${inside[@]}"
	expect "$kind: the PLT's ${#inside[@]} stubs named NAME@plt" \
		"$want" "$(names --no-demangle "$tmp/plt.data")"
done

# .gnu_debuglink: the stripped file names its debug file, found beside it.
mkdir -p "$tmp/dl"
${CROSS}objcopy --only-keep-debug "$tmp/prog" "$tmp/dl/prog.debug"
${CROSS}strip --strip-all -o "$tmp/dl/prog" "$tmp/prog"
(cd "$tmp/dl" && ${CROSS}objcopy --add-gnu-debuglink=prog.debug prog)
mkdata "$tmp/dl.data" "$tmp/dl/prog" "$a2" "$c2"
expect "stripped, .gnu_debuglink: names from the debug file" \
	"churn(geo::Shape const*, long)|geo::Square::area(long) const|" \
	"$(names "$tmp/dl.data")"
mv "$tmp/dl/prog.debug" "$tmp/dl/elsewhere.debug"
expect "stripped, debug file gone: no names" "[prog]|" "$(names "$tmp/dl.data")"

# MiniDebugInfo: an xz'd symbol table of the functions .dynsym lacks.
mkdir -p "$tmp/mini"
${CROSS}nm --format=posix --defined-only "$tmp/prog" |
	awk '$2 == "T" || $2 == "t" { print $1 }' | sort -u >"$tmp/mini/keep"
${CROSS}objcopy --only-keep-debug "$tmp/prog" "$tmp/mini/debug"
${CROSS}objcopy -S --remove-section .gdb_index --remove-section .comment \
	--keep-symbols="$tmp/mini/keep" "$tmp/mini/debug" "$tmp/mini/mini"
xz -f "$tmp/mini/mini"
${CROSS}strip --strip-all -o "$tmp/mini/prog" "$tmp/prog"
${CROSS}objcopy --add-section .gnu_debugdata="$tmp/mini/mini.xz" "$tmp/mini/prog"
mkdata "$tmp/mini.data" "$tmp/mini/prog" "$a2" "$c2"
expect "stripped, .gnu_debugdata only: names from MiniDebugInfo" \
	"churn(geo::Shape const*, long)|geo::Square::area(long) const|" \
	"$(names "$tmp/mini.data")"

# debuginfod: the debug file only on a server (a static tree served over
# HTTP answers /buildid/ID/debuginfo as debuginfod does).
mkdir -p "$tmp/srv/buildid/$bid" "$tmp/di" "$tmp/cache"
${CROSS}objcopy --only-keep-debug "$tmp/prog" "$tmp/srv/buildid/$bid/debuginfo"
${CROSS}strip --strip-all -o "$tmp/di/prog" "$tmp/prog"
port=$((20000 + RANDOM % 20000))
(cd "$tmp/srv" && exec python3 -m http.server --bind 127.0.0.1 "$port" \
	>/dev/null 2>&1) &
srv=$!
for _ in $(seq 50); do
	python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $port), 1)" \
		2>/dev/null && break
	sleep 0.1
done
mkdata "$tmp/di.data" "$tmp/di/prog" "$a2" "$c2"
got=$(DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$tmp/cache \
	names "$tmp/di.data")
expect "stripped, DEBUGINFOD_URLS: names from the server" \
	"churn(geo::Shape const*, long)|geo::Square::area(long) const|" "$got"
expect "stripped, no DEBUGINFOD_URLS: no names" "[prog]|" \
	"$(unset DEBUGINFOD_URLS; DEBUGINFOD_CACHE_PATH=$tmp/cache2 names "$tmp/di.data")"

# Inline chains with --lines, against addr2line -i: an address in churn
# where mix() was inlined.
end=$(printf '%x' $((0x$churn + 0x$(${CROSS}nm -S "$tmp/prog" |
	awk '$4 == "_Z5churnPKN3geo5ShapeEl" { print $2 }'))))
# addr2line -i (binutils 2.40) misnames the innermost function the first
# time it looks into a function: ask twice, keep the second answer.
a2l() {
	local out n
	out=$(${CROSS}addr2line -i -f -C -e "$tmp/prog" "$1" "$1")
	n=$(printf '%s\n' "$out" | wc -l)
	printf '%s\n' "$out" | tail -n $((n / 2))
}
inl=
for ((a = 0x$churn; a < 0x$end; a += 2)); do
	if a2l "$(printf '%x' $a)" | grep -q '^mix'; then
		inl=$(printf '%x' $a)
		break
	fi
done
if [ -z "$inl" ]; then
	fail "an address where mix() is inlined (addr2line -i)"
else
	mkdata "$tmp/inl.data" "$tmp/prog" "$inl"
	# addr2line: innermost first, function then file:line per frame
	# names without their parameter lists: addr2line takes DW_AT_name,
	# report the demangled linkage name
	plain() { sed -E 's/\([^()]*\)( const)?//g'; }
	want=$(a2l "$inl" |
		paste - - | awk -F'\t' '{ n = split($2, p, "/"); sub(/ \(discriminator [0-9]+\)/, "", p[n]); print $1, p[n] }' |
		plain | tac | tr '\n' ';' | sed 's/;$//')
	got=$("$UWPROF" report -q -f folded --lines "$tmp/inl.data" | sed 's/ [0-9]*$//' |
		sed 's/ (inlined)//g' | plain)
	expect "--lines: the inline chain and lines addr2line -i gives" "$want" "$got"
	case $("$UWPROF" report -q -f folded --lines "$tmp/inl.data") in
	*"mix"*"(inlined)"*) ok "--lines: the inlined frame is marked" ;;
	*) fail "--lines: the inlined frame is marked" ;;
	esac
	n=$("$UWPROF" report -q -f perf-script --lines "$tmp/inl.data" | grep -c "^[[:space:]]*$(printf '%x' $((0x$inl | 1))) ")
	expect "perf-script: the inlined frame and its caller share the address" 2 "$n"
	# pprof: one Location at that address whose Line entries are the chain,
	# innermost first (go tool pprof -raw prints one line per entry).
	if command -v go >/dev/null; then
		"$UWPROF" report -q -f pprof --lines -o "$tmp/inl.pb.gz" "$tmp/inl.data"
		got=$(HOME=$tmp GOCACHE=$tmp/go go tool pprof -raw "$tmp/inl.pb.gz" 2>/dev/null |
			awk -v a="0x$inl" '$2 == a { on = 1; print $4, $5; next }
				on && /^[[:space:]]/ && $1 !~ /:$/ { print $1, $2; next } { on = 0 }' | plain |
			tr '\n' ';' | sed 's/;$//')
		want_pp=$(printf '%s\n' "$want" | tr ';' '\n' | tac | tr '\n' ';' | sed 's/;$//')
		expect "pprof: one location whose lines are the inline chain" "$want_pp" "$got"
		if HOME=$tmp GOCACHE=$tmp/go go tool pprof -raw "$tmp/inl.pb.gz" 2>/dev/null |
		   grep -q '^1: .*\[FN\]\[FL\]\[LN\]\[IN\]'; then
			ok "pprof: the mapping says it has functions, files, lines and inline frames"
		else
			fail "pprof: the mapping's has_* flags"
		fi
	else
		skip "pprof inline chain: golang-go is not installed"
	fi
fi
finish
