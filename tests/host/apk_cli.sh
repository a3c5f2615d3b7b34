#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Libraries inside APKs, on the host: the zip reader (tools/uwprof/lib/
# zip.c) finds a stored, page-aligned entry by name and by file offset,
# and refuses a deflated entry, a malformed or truncated zip and a file
# that is not a zip, each with its own message; 'uwprof table APK!/ENTRY'
# makes the same table as from the library's own file; 'uwprof report'
# names and symbolizes the frames of a mapping of the APK (a data file
# written here, as record writes one) in every format.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
top=$(cd "$here/../.." && pwd)
UWPROF=${UWPROF:-$top/build/host/uwprof}
UWPROF=$(cd "$(dirname "$UWPROF")" && pwd)/$(basename "$UWPROF")
PROBE=$(dirname "$UWPROF")/tests/zip_probe
CC=arm-linux-gnueabihf-gcc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v "$CC" >/dev/null || [ ! -x "$PROBE" ]; then
	skip "APK reader: no $CC or $PROBE (make setup test-host)"
	finish
	exit 0
fi
"$CC" -O2 -g -mthumb -march=armv7-a+fp -fPIC -shared -nostdlib \
	-Wl,--build-id -Wl,-e,hot_run -Wl,-z,max-page-size=4096 \
	-o "$tmp/libhot.so" "$top/tests/apk/libhot.c" || fail "build libhot.so"
echo '<manifest/>' >"$tmp/manifest.xml"
lib=lib/armeabi-v7a/libhot.so
python3 "$top/tests/apk/mkapk.py" "$tmp/x.apk" \
	AndroidManifest.xml="$tmp/manifest.xml:deflated" \
	"$lib=$tmp/libhot.so" \
	lib/armeabi-v7a/libdeflated.so="$tmp/libhot.so:deflated" >"$tmp/layout" ||
	fail "mkapk.py"
off=$(awk -v e="$lib" '$1 == e {print $2}' "$tmp/layout")
doff=$(awk '$1 == "lib/armeabi-v7a/libdeflated.so" {print $2}' "$tmp/layout")
size=$(stat -c %s "$tmp/libhot.so")
bid=$("$PROBE" name "$tmp/libhot.so" | sed -n 's/.* build-id \([0-9a-f]*\) .*/\1/p')

expect "mkapk.py aligns the stored library's data to 4096" 0 $((off % 4096))

# By name: the entry, its offset and size, and the ELF read through it.
expect "found by name: entry, offset, size, build-id of the library" \
	"entry $lib at $off size $size build-id $bid loads 2" \
	"$("$PROBE" name "$tmp/x.apk!/$lib")"
expect "a file's own path is the file, not an archive" \
	"entry - at 0 size $size build-id $bid loads 2" \
	"$("$PROBE" name "$tmp/libhot.so")"

# By offset, as record meets a mapping: the first page of the entry and a
# page inside it (the library is two pages... or one: its last byte).
expect "found by the offset of a mapping (its first byte)" \
	"spec $tmp/x.apk!/$lib elf_offset $off build-id $bid loads 2" \
	"$("$PROBE" mapping "$tmp/x.apk" "$off")"
expect "found by an offset inside the entry (its last byte)" \
	"spec $tmp/x.apk!/$lib elf_offset $off build-id $bid loads 2" \
	"$("$PROBE" mapping "$tmp/x.apk" $((off + size - 1)))"
expect "an offset in no entry's data (a local header) is not a library" \
	"plain" "$("$PROBE" mapping "$tmp/x.apk" 0)"
expect "an offset in a deflated entry is not a library" \
	"plain" "$("$PROBE" mapping "$tmp/x.apk" "$doff")"
expect "a mapping of an ELF file is the file" \
	"plain" "$("$PROBE" mapping "$tmp/libhot.so" 0)"

# The refusals, each with its reason.
err_of() { "$UWPROF" table "$1" --build-id-dir "$tmp/t-err" 2>&1 >/dev/null; echo "rc=$?"; }
e=$(err_of "$tmp/x.apk!/lib/armeabi-v7a/libdeflated.so")
case $e in
*"entry lib/armeabi-v7a/libdeflated.so is deflate (method 8); only a stored (uncompressed) entry"*"rc=2")
	ok "a deflated entry is refused (exit 2): stored entries only" ;;
*) fail "a deflated entry: $e" ;;
esac
e=$(err_of "$tmp/x.apk!/lib/armeabi-v7a/libnone.so")
case $e in
*"no entry lib/armeabi-v7a/libnone.so in the zip"*"rc=2") ok "a missing entry is named (exit 2)" ;;
*) fail "a missing entry: $e" ;;
esac
python3 - "$tmp/x.apk" "$tmp" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
eocd = b.rfind(b'PK\5\6')
# the central directory offset pointing past the end of the file
bad = bytearray(b)
struct.pack_into('<I', bad, eocd + 16, len(b) + 100)
open(sys.argv[2] + '/badcd.apk', 'wb').write(bad)
# cut in the middle: the end record kept, the central directory gone
open(sys.argv[2] + '/cut.apk', 'wb').write(b[:6000] + b[eocd:])
# a central directory entry cut short (count one more than there is)
more = bytearray(b)
struct.pack_into('<HH', more, eocd + 8, 4, 4)
open(sys.argv[2] + '/count.apk', 'wb').write(more)
# a truncated copy: no end record at all
open(sys.argv[2] + '/trunc.apk', 'wb').write(b[:len(b) // 2])
PY
for z in badcd cut; do
	e=$(err_of "$tmp/$z.apk!/$lib")
	case $e in
	*"malformed or truncated zip: the central directory lies outside the file"*"rc=2")
		ok "$z.apk: refused as malformed (exit 2)" ;;
	*) fail "$z.apk: $e" ;;
	esac
done
e=$(err_of "$tmp/count.apk!/lib/armeabi-v7a/libnone.so")
case $e in
*"malformed zip: a central directory entry is cut short"*"rc=2") ok "count.apk: an entry past the directory is refused" ;;
*) fail "count.apk: $e" ;;
esac
e=$(err_of "$tmp/trunc.apk!/$lib")
case $e in
*"trunc.apk is not a zip archive (no end of central directory)"*"rc=2") ok "a truncated zip (no end record) is refused" ;;
*) fail "trunc.apk: $e" ;;
esac
e=$(err_of "$tmp/libhot.so!/$lib")
case $e in
*"libhot.so is not a zip archive"*"rc=2") ok "a file that is not a zip is refused" ;;
*) fail "not a zip: $e" ;;
esac

# uwprof table APK!/ENTRY: the table of the stored bytes, the same as from
# the library's own file.
mkdir -p "$tmp/t-apk" "$tmp/t-file"
if "$UWPROF" table "$tmp/x.apk!/$lib" --build-id-dir "$tmp/t-apk" >/dev/null &&
	"$UWPROF" table "$tmp/libhot.so" --build-id-dir "$tmp/t-file" >/dev/null &&
	[ -s "$tmp/t-apk/$bid.uwt" ] && cmp -s "$tmp/t-apk/$bid.uwt" "$tmp/t-file/$bid.uwt"; then
	ok "uwprof table 'APK!/ENTRY' makes the library's table, by its build-id"
else
	fail "uwprof table 'APK!/ENTRY': $(ls "$tmp/t-apk" "$tmp/t-file" | tr '\n' ' ')"
fi

# report: a process that maps the APK's library at its offset, as record
# writes it (path APK!/ENTRY, elf_offset the entry's), without the bias
# (report works it out from the entry's headers and the elf_offset).
mkdir -p "$tmp/symfs" "$tmp/dev"
cp "$tmp/x.apk" "$tmp/symfs/base.apk"
nm_of() { arm-linux-gnueabihf-nm "$tmp/libhot.so" | awk -v s="$1" '$3 == s {print $1}'; }
python3 - "$tmp" "$off" "$bid" "$(nm_of hot_leaf)" "$(nm_of hot_mid_b)" \
	"$(nm_of hot_mid_a)" "$(nm_of hot_run)" "$lib" <<PY
import sys
sys.path.insert(0, "$here")
import uwdata
tmp, off, bid = sys.argv[1], int(sys.argv[2]), bytes.fromhex(sys.argv[3])
leaf, mid_b, mid_a, run = (int(x, 16) for x in sys.argv[4:8])
lib = sys.argv[8]
base = 0x40000000
frames = [base + leaf + 4 + 1, base + mid_b + 6 + 1, base + mid_a + 6 + 1,
          base + run + 8 + 1]
for name, path in (("local", tmp + "/x.apk!/" + lib),
                   ("dev", "/data/app/com.example-1/base.apk!/" + lib)):
    w = uwdata.Writer(tmp + "/" + name + ".data")
    w.process(100, "/system/bin/app_process32")
    w.mapping(100, base, base + 0x1000, off, path, build_id=bid, elf_offset=off)
    for i in range(10):
        w.sample(100, 100, 1000 + i, frames)
    w.close()
PY
stack="hot_run;hot_mid_a;hot_mid_b;hot_leaf"
rep() { "$UWPROF" report -q "$@"; }
f=$(rep -i "$tmp/local.data" -f folded)
expect "report -f folded: the stack from the APK's library's symbols" "$stack 10" "$f"
t=$(rep -i "$tmp/local.data" -s dso)
case $t in
*"x.apk!/$lib"*) ok "report -s dso names the module x.apk!/$lib" ;;
*) fail "report -s dso: $(echo "$t" | grep -v '^#' | head -5)" ;;
esac
rep -i "$tmp/local.data" | grep -q 'hot_leaf' && ok "report (text) names hot_leaf" ||
	fail "report (text): no hot_leaf"
ps=$(rep -i "$tmp/local.data" -f perf-script | head -3)
case $ps in
*"hot_leaf ($tmp/x.apk!/$lib)"*) ok "report -f perf-script: hot_leaf (APK!/ENTRY)" ;;
*) fail "perf-script: $ps" ;;
esac
rep -i "$tmp/local.data" -f svg -o "$tmp/f.svg" && grep -q 'hot_mid_a' "$tmp/f.svg" &&
	ok "report -f svg has the APK library's functions" || fail "svg"
if rep -i "$tmp/local.data" -f pprof -o "$tmp/p.pb.gz" && command -v go >/dev/null; then
	raw=$(GOCACHE=${GOCACHE:-$top/build/go-cache} go tool pprof -raw "$tmp/p.pb.gz" 2>&1)
	if echo "$raw" | grep -q "x.apk!/$lib" && echo "$raw" | grep -q 'hot_mid_b'; then
		ok "report -f pprof: mapping x.apk!/$lib, functions named (go tool pprof -raw)"
	else
		fail "pprof: $(echo "$raw" | grep -A3 Mappings)"
	fi
else
	skip "report -f pprof checked by go tool pprof: no go"
fi
# A device path: found through --symfs holding a copy of the APK.
f=$(rep -i "$tmp/dev.data" --symfs "$tmp/symfs" -f folded 2>&1)
expect "report --symfs DIR finds DIR/base.apk!/ENTRY for a device APK path" \
	"$stack 10" "$f"
t=$(rep -i "$tmp/dev.data" --symfs "$tmp/symfs" -s dso)
case $t in
*"base.apk!/$lib"*) ok "report -s dso names it base.apk!/$lib" ;;
*) fail "report -s dso (device path): $(echo "$t" | grep -v '^#' | head -3)" ;;
esac
finish
