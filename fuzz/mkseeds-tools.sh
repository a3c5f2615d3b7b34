#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# mkseeds-tools.sh OUTROOT UWPROF: seeds for the tool harnesses, from the
# test data, into OUTROOT/NAME/seeds (made at build time: the ELFs and
# tables come from tests/host/mkelf.py and the uwprof just built).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$here/..
out=$1 uwprof=$2
mkelf="python3 $top/tests/host/mkelf.py --text-addr 0x60"
for d in report dump table breakpad procmaps datafile reportmem uwt; do
	rm -rf "$out/$d/seeds"
	mkdir -p "$out/$d/seeds"
done

# report: the recorded fixture, and its first records (small inputs
# mutate faster) closed by an end record.
cp "$top/tests/data/report/fixture.data" "$out/report/seeds/fixture.data"
python3 - "$top/tests/data/report/fixture.data" "$out/report/seeds" <<'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
hsize = struct.unpack_from('<I', data, 12)[0]
pos, recs = hsize, []
while pos + 8 <= len(data):
    typ, size = struct.unpack_from('<II', data, pos)
    if size < 8 or pos + size > len(data):
        break
    recs.append(data[pos:pos + size])
    pos += size
end = struct.pack('<II', 5, 24) + struct.pack('<QQ', 0, 0)
maps = [r for r in recs if struct.unpack_from('<I', r)[0] in (2, 3)]
samples = [r for r in recs if struct.unpack_from('<I', r)[0] == 1]
for n in (1, 4, 16):
    body = b''.join(maps) + b''.join(samples[:n]) + end
    open('%s/small-%d.data' % (sys.argv[2], n), 'wb').write(data[:hsize] + body)
PY

cp "$out"/report/seeds/* "$out/datafile/seeds/"
cp "$out"/report/seeds/* "$out/reportmem/seeds/"

# table: synthetic ELFs of each kind, and the fixture program.
$mkelf "$out/table/seeds/plain.so" --funcs 6
$mkelf "$out/table/seeds/mixed.so" --funcs 8 --dwarf-every 2 --extab-every 3 \
	--cantunwind-every 4
$mkelf "$out/table/seeds/plt.so" --funcs 4 --varied --dwarf-every 2 --plt 3
cp "$top/tests/data/report/fixture" "$out/table/seeds/fixture"
# hostile ones from tests/host/hostile_cli.sh
$mkelf "$out/table/seeds/extab-wrap.so" --funcs 4 --extab-every 2 \
	--extab-addr-zero --extab-target 0xfffffffe
$mkelf "$out/table/seeds/extab-nobits.so" --funcs 4 --extab-every 2 --extab-nobits

# dump: tables made from those, as containers and raw blobs.
for f in plain mixed plt; do
	"$uwprof" table "$out/table/seeds/$f.so" -o "$out/dump/seeds/$f.uwt" >/dev/null
	"$uwprof" table "$out/table/seeds/$f.so" --raw -o "$out/dump/seeds/$f.bin" >/dev/null
done
# a table in parts (container version 2): the fixture split at a low limit
"$uwprof" table "$out/table/seeds/fixture" --test-fot-limit 8 \
	-o "$out/dump/seeds/fixture-split.uwt" >/dev/null

cp "$out"/dump/seeds/* "$out/uwt/seeds/"

# breakpad: the worked example and an epilogue.
cp "$top/tests/data/table/worked.sym" "$out/breakpad/seeds/worked.sym"
cat >"$out/breakpad/seeds/epi.sym" <<'SYM'
STACK CFI INIT 2000 40 .cfa: sp 0 + .ra: lr
STACK CFI 2002 .cfa: sp 8 + .ra: .cfa -4 + ^ r4: .cfa -8 + ^
STACK CFI 2010 .cfa: sp 0 + .ra: lr
STACK CFI 2010 r4: r4
STACK CFI 2012 .cfa: sp 8 + .ra: .cfa -4 + ^ r4: .cfa -8 + ^
SYM

# procmaps: an ARM process's maps as the kernel writes them.
cat >"$out/procmaps/seeds/lua.maps" <<'MAPS'
00010000-0003d000 r-xp 00000000 fe:00 1123       /usr/bin/lua5.4
0004c000-0004e000 rw-p 0002c000 fe:00 1123       /usr/bin/lua5.4
0004e000-0006f000 rw-p 00000000 00:00 0          [heap]
76e12000-76f4d000 r-xp 00000000 fe:00 2212       /lib/arm-linux-gnueabihf/libc.so.6
76f4d000-76f5c000 ---p 0013b000 fe:00 2212       /lib/arm-linux-gnueabihf/libc.so.6
76f6a000-76f8b000 r-xp 00000000 fe:00 2201       /lib/arm-linux-gnueabihf/ld-linux-armhf.so.3 (deleted)
7efdf000-7f000000 rw-p 00000000 00:00 0          [stack]
ffff0000-ffff1000 r-xp 00000000 00:00 0          [vectors]
MAPS

for d in "$here"/regress/*/; do
	[ -d "$d" ] && cp "$d"* "$out/$(basename "$d")/seeds/"
done
exit 0
