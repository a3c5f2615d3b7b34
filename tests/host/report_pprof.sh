#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# uwprof report -f pprof read back by pprof, on the recorded fixture (see
# report_cli.sh): go tool pprof -raw lists each mapping with its build-id
# and the locations at their runtime addresses (checked against
# llvm-symbolizer on the ELF); -top -lines gives the text report's
# functions and lines, also for a profile made without --lines (and
# functions alone with --no-lines); a profile made without symbols is named by pprof
# itself from PPROF_BINARY_PATH (google/pprof, built from Debian's source
# into build/tools/pprof: go tool pprof cannot match build-ids) as the text
# report names it; -tagfocus=pid=N picks one process of two.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
UWPROF=${UWPROF:-$here/../../build/host/uwprof}
UWPROF=$(cd "$(dirname "$UWPROF")" && pwd)/$(basename "$UWPROF")
BUILD=${BUILD:-$here/../../build}
PPROF=${PPROF:-$BUILD/tools/pprof}
data=$here/../data/report
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$data" || exit 1
export HOME=$tmp GOCACHE=$tmp/go

rep() { "$UWPROF" report -q --symfs . "$@"; }
gopprof() { go tool pprof -sample_index=samples -nodefraction=0 "$@" 2>"$tmp/err"; }

# "name samples" of every function with self samples: from pprof -top
# (flat column; the name is the rest of the row) and from the text report
# (its by-self table; with --lines the name includes file:line).
top_rows() {
	awk '$1 ~ /^[0-9]+$/ && $2 ~ /%$/ && $1 > 0 {
		n = $6; for (i = 7; i <= NF; i++) n = n " " $i; print n, $1 }' | sort
}
text_rows() {
	awk '/by self/ {on = 1; next} /by total/ {on = 0}
	     on && $1 ~ /%$/ { n = $5; for (i = 6; i <= NF; i++) n = n " " $i; print n, $3 }' | sort
}
expect_rows() {
	if [ -s "$2" ] && cmp -s "$2" "$3"; then ok "$1 ($(wc -l <"$2") functions)"; else
		fail "$1"
		diff "$2" "$3" | sed 's/^/#   /'
		sed 's/^/#   /' "$tmp/err"
	fi
}

if ! command -v go >/dev/null; then
	skip "pprof tests: golang-go is not installed (make setup)"
	finish
	exit
fi

rep --lines -f pprof -o "$tmp/p.pb.gz" fixture.data

# --- -raw: mappings with build-ids, locations at runtime addresses ---
gopprof -raw "$tmp/p.pb.gz" >"$tmp/raw"
bid=$(readelf -n fixture | sed -n 's/.*Build ID: //p')
# Mappings: each with its range and a build-id, the fixture's the ELF's.
# Locations of the fixture: one per address, inside the mapping, and at
# link address = runtime address - start + offset (its text segment is at
# link address 0, file offset 0) llvm-symbolizer finds the same function
# and line.  Prints TAP-less verdicts, one per line, for ok/fail below.
# The checker's own failure (a traceback, a format it cannot split) is a
# failure too, and so is a verdict missing from its output.
python3 - "$tmp/raw" "$bid" >"$tmp/verdicts" 2>"$tmp/checker.err" <<'PY'
import re, subprocess, sys
raw, bid = open(sys.argv[1]).read(), sys.argv[2]
locs_txt, maps_txt = raw.split('\nLocations\n')[1].split('\nMappings\n')
maps = {}
for line in maps_txt.splitlines():
    m = re.match(r'(\d+): (0x[0-9a-f]+)/(0x[0-9a-f]+)/(0x[0-9a-f]+) (\S+) ([0-9a-f]*)', line)
    if m:
        maps[m.group(1)] = (int(m.group(2), 16), int(m.group(3), 16),
                            int(m.group(4), 16), m.group(5), m.group(6))
# the samples taken in the kernel: a mapping of their own, no range
kmaps = [k for k, v in maps.items() if v[3] == '[kernel]']
print('ok' if len(kmaps) == 1 and maps[kmaps[0]][:3] == (0, 0, 0) else 'fail',
      'the [kernel] leaf has a mapping of its own', kmaps)
for k in kmaps:
    del maps[k]
good = len(maps) == 3 and all(len(b) == 40 and s and s % 4096 == 0 and l > s
                              for s, l, o, f, b in maps.values())
print('ok' if good else 'fail', '-raw lists the 3 mappings, each with its range and a build-id:',
      ' '.join('%s %#x-%#x %s' % (f, s, l, b[:8]) for s, l, o, f, b in maps.values()))
kloc = [l for l in locs_txt.splitlines() if '[kernel]' in l.split()]
print('ok' if kloc and all('M=' + k in l.split() for l in kloc for k in kmaps) else 'fail',
      'every [kernel] location lies in that mapping:', len(kloc))
fid = [k for k, v in maps.items() if v[3] == '/data/fixture']
print('ok' if fid and maps[fid[0]][4] == bid else 'fail',
      "the fixture's mapping carries the ELF's build-id", bid)
if not fid:
    sys.exit()
s, l, o = maps[fid[0]][:3]
locs = []
for line in locs_txt.splitlines():
    f = line.split()
    if len(f) >= 5 and f[2] == 'M=' + fid[0]:
        locs.append((int(f[1], 16), f[3], f[4]))
inside = all(s <= a < l for a, n, fl in locs)
nfun = len(set(n for a, n, fl in locs))
print('ok' if inside and len(locs) > nfun else 'fail',
      'one location per address: %d in %d functions, all inside the mapping' % (len(locs), nfun))
out = subprocess.run(['llvm-symbolizer', '--obj=fixture'] +
                     ['%#x' % (a - s + o) for a, n, fl in locs],
                     capture_output=True, text=True).stdout.strip().split('\n\n')
sym = []
for st in out:
    name, where = st.split('\n')[:2]
    fl = where.rsplit('/', 1)[-1].rsplit(':', 1)[0]
    sym.append((name, ':0' if fl.startswith('??') else fl))
mine = [(n, fl) for a, n, fl in locs]
print('ok' if sym == mine else 'fail',
      'llvm-symbolizer names each of the %d locations at its address as uwprof does' % len(locs),
      '' if sym == mine else repr(list(zip(mine, sym))))
PY
checker_rc=$?
while read -r verdict what; do
	if [ "$verdict" = ok ]; then ok "$what"; else fail "$what"; fi
done <"$tmp/verdicts"
nverdicts=$(wc -l <"$tmp/verdicts")
if [ "$checker_rc" -eq 0 ] && [ "$nverdicts" -eq 6 ]; then
	ok "the -raw checker ran to its end (6 verdicts)"
else
	fail "the -raw checker: exit $checker_rc after $nverdicts of 6 verdicts"
	sed 's/^/#   /' "$tmp/checker.err"
fi

# --- -top -lines: the text report's --lines rows ---
gopprof -top -lines -nodecount=1000 "$tmp/p.pb.gz" | top_rows >"$tmp/pp"
rep --lines --top 1000 fixture.data | text_rows >"$tmp/tx"
expect_rows "go tool pprof -top -lines gives the text report's functions, files, lines and self samples" \
	"$tmp/pp" "$tmp/tx"
if grep -q ' fixture\.c:[0-9][0-9]* ' "$tmp/pp"; then ok "-top -lines shows fixture.c:LINE"; else
	fail "-top -lines shows no fixture.c:LINE"
fi
gopprof -top -nodecount=1000 "$tmp/p.pb.gz" | top_rows >"$tmp/pp"
rep --top 1000 fixture.data | text_rows >"$tmp/tx"
expect_rows "go tool pprof -top gives the text report's self samples" "$tmp/pp" "$tmp/tx"

# --- file:line by default, as pprof's own profiles; --no-lines without ---
rep -f pprof -o "$tmp/d.pb.gz" fixture.data
gopprof -top -lines -nodecount=1000 "$tmp/d.pb.gz" | top_rows >"$tmp/pp"
rep --lines --top 1000 fixture.data | text_rows >"$tmp/ln"
expect_rows "a profile made without --lines answers -top -lines with files and lines" \
	"$tmp/pp" "$tmp/ln"
rep --no-lines -f pprof -o "$tmp/nl.pb.gz" fixture.data
gopprof -top -lines -nodecount=1000 "$tmp/nl.pb.gz" | top_rows >"$tmp/pp"
expect_rows "--no-lines: -top -lines has functions only, no file:line" \
	"$tmp/pp" "$tmp/tx"

# --- re-symbolization: no symbols in the profile, pprof finds the ELF ---
mkdir "$tmp/nosym"
"$UWPROF" report -q --symfs "$tmp/nosym" -f pprof -o "$tmp/n.pb.gz" fixture.data
if gopprof -top "$tmp/n.pb.gz" | grep -q ' spin$'; then
	fail "a profile made without symbols already names spin"
else
	ok "a profile made without symbols names the fixture's frames [fixture]"
fi
if [ ! -x "$PPROF" ]; then
	fail "re-symbolization: no $PPROF (make test-host builds it)"
else
	PPROF_BINARY_PATH=$data "$PPROF" -sample_index=samples -nodefraction=0 -top -nodecount=1000 \
		"$tmp/n.pb.gz" 2>"$tmp/err" | top_rows >"$tmp/pp"
	expect_rows "pprof re-symbolizes it from PPROF_BINARY_PATH as the text report names it" \
		"$tmp/pp" "$tmp/tx"
	# A file whose build-id differs is not used.
	mkdir "$tmp/other" && cp "$UWPROF" "$tmp/other/fixture"
	PPROF_BINARY_PATH=$tmp/other "$PPROF" -sample_index=samples -top "$tmp/n.pb.gz" \
		>"$tmp/out" 2>"$tmp/err"
	if grep -q 'build-id mismatch' "$tmp/err" && ! grep -q ' spin$' "$tmp/out"; then
		ok "a file with another build-id is not used"
	else
		fail "a file with another build-id: $(head -3 "$tmp/err")"
	fi
fi

# --- -tagfocus=pid=N on two processes ---
# fixture.data with every other sample moved to a copy of the process, pid 4242.
python3 - fixture.data "$tmp/two.data" <<'PY'
import struct, sys
SAMPLE, MAPPING, PROCESS = 1, 2, 3
b = open(sys.argv[1], 'rb').read()
out, pos, n = [b[:40]], 40, 0
while pos + 8 <= len(b):
    t, size = struct.unpack_from('<II', b, pos)
    rec = bytearray(b[pos:pos + size])
    out.append(bytes(rec))
    if t in (MAPPING, PROCESS):
        rec[8:12] = struct.pack('<I', 4242)
        out.append(bytes(rec))
    elif t == SAMPLE:
        if n % 2:
            out[-1] = bytes(rec[:16]) + struct.pack('<II', 4242, 4242) + bytes(rec[24:])
        n += 1
    pos += size
open(sys.argv[2], 'wb').write(b''.join(out))
PY
rep -f pprof -o "$tmp/two.pb.gz" "$tmp/two.data"
for pid in 88 4242; do
	gopprof -top -nodecount=1000 -tagfocus=pid=$pid "$tmp/two.pb.gz" | top_rows >"$tmp/pp"
	rep --top 1000 --pid $pid "$tmp/two.data" | text_rows >"$tmp/tx"
	expect_rows "-tagfocus=pid=$pid gives report --pid $pid" "$tmp/pp" "$tmp/tx"
done
n88=$(rep --pid 88 "$tmp/two.data" | sed -n 's/^# \([0-9]*\) samples of.*/\1/p')
n42=$(rep --pid 4242 "$tmp/two.data" | sed -n 's/^# \([0-9]*\) samples of.*/\1/p')
all=$(sed -n 's/^# \([0-9]*\) samples of.*/\1/p' fixture.text)
if [ $((n88 + n42)) -eq "$all" ] && [ "$n42" -gt 0 ] && [ "$n88" -gt 0 ]; then
	ok "the two processes split the $all samples ($n88 + $n42)"
else
	fail "split: $n88 + $n42 of $all"
fi
gopprof -tags "$tmp/two.pb.gz" >"$tmp/tags"
if grep -qE '^ *pid: Total' "$tmp/tags" && grep -qE ': 4242$' "$tmp/tags" &&
   grep -qE ': fixture$' "$tmp/tags"; then
	ok "-tags lists pid, tid and process_name"
else
	fail "-tags:"; sed 's/^/#   /' "$tmp/tags"
fi
gopprof -top -tagfocus=pid=7 "$tmp/two.pb.gz" >/dev/null
if grep -q 'matched no samples' "$tmp/err"; then ok "-tagfocus=pid=7 matches nothing"; else
	fail "-tagfocus=pid=7: $(cat "$tmp/err")"
fi
finish
