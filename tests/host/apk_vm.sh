#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Libraries inside APKs, end to end (issue 23, item 3): a library stored
# uncompressed and page-aligned in a zip (tests/apk/mkapk.py, as
# zipalign -p lays out an APK), run from the zip by a loader of our own
# that maps its segments at the entry's offset as Android's linker does
# (tests/apk/apk_loader.c).  Tables are made on the host, the library's
# with 'uwprof table APK!/ENTRY'; "uwprof record" runs in the VM and the
# host judges: the mapping recorded as APK!/ENTRY with its table, every
# sample whose pc is in the library fully unwound (the call-site checker
# of make bench), and every format of "uwprof report" naming the module
# APK!/ENTRY and its functions from the stored ELF.  Boots one VM.
set -u
. "$(dirname "$0")/lib.sh"
th_init
apk=$BUILD/arm/apk
libdir=$BUILD/arm/root/lib/arm-linux-gnueabihf

need_vm "APK libraries in the VM" "make setup module uwprof-arm apk-arm" "$arm_uwprof" \
	"$apk/libhot.so" "$apk/apk_loader"

lib=lib/armeabi-v7a/libhot.so
mkdir -p "$tmp/tables" "$tmp/data"
echo '<manifest/>' >"$tmp/manifest.xml"
python3 "$top/tests/apk/mkapk.py" "$tmp/data/x.apk" \
	AndroidManifest.xml="$tmp/manifest.xml:deflated" \
	classes.dex="$apk/apk_loader:deflated" "$lib=$apk/libhot.so" >"$tmp/layout" ||
	fail "mkapk.py"
off=$(awk -v e="$lib" '$1 == e {print $2}' "$tmp/layout")
cp "$apk/apk_loader" "$tmp/data/"
# The library's table from the APK itself, as a user would make it; the
# loader, the C library and the loader of the system as the other VM tests
# table them (libc6-dbg's debug files, prologue analysis).
"$UWPROF" table "$tmp/data/x.apk!/$lib" --build-id-dir "$tmp/tables" >/dev/null &&
	ok "uwprof table 'x.apk!/$lib'" || fail "uwprof table 'x.apk!/$lib'"
dbgdir=$BUILD/arm/dbg/usr/lib/debug
for f in "$apk/apk_loader" "$libdir/libc.so.6" "$libdir/ld-linux-armhf.so.3"; do
	"$UWPROF" table "$f" --build-id-dir "$tmp/tables" --debug-dir "$dbgdir" \
		--prologue-analysis >/dev/null || fail "uwprof table $f"
done
if "$top/scripts/kernel-vdso.py" "$("$top/scripts/vm.sh" --print-kernel)" \
	"$tmp/vdso.so" 2>"$tmp/vdso.err"; then
	"$UWPROF" table "$tmp/vdso.so" --build-id-dir "$tmp/tables" \
		--prologue-analysis >/dev/null || fail "uwprof table vdso.so"
fi

cat >"$tmp/run.sh" <<EOF2
#!/bin/sh
insmod /uwprof.ko || exit 1
cd /data
uwprof record -F 1000 --tables /data/tables -o /out/apk.data -- \\
	/data/apk_loader /data/x.apk $off 4 >/out/apk.log 2>&1; echo \$? >/out/apk.rc
# a child of the command: followed by the module, which cannot attach the
# library's table by build-id; record attaches it
uwprof record -F 1000 --tables /data/tables -o /out/child.data -- \
	sh -c "/data/apk_loader /data/x.apk $off 2; true" >/out/child.log 2>&1; echo \$? >/out/child.rc
# the device's own report: symbols read from the stored entry in place
uwprof report -q -i /out/apk.data -f folded >/out/apk.dev-folded 2>/out/apk.dev-err
uwprof report -q -i /out/apk.data -s dso >/out/apk.dev-dso 2>>/out/apk.dev-err
rmmod uwprof
exit 0
EOF2
chmod +x "$tmp/run.sh"
run_vm 300 --add "$arm_uwprof:/usr/bin/uwprof" --add "$tmp/data:/data" \
	--add "$tmp/tables:/data/tables"
out=$tmp/out
expect "record -- apk_loader exits 0" 0 "$(cat "$out/apk.rc" 2>/dev/null)"
grep -q 'apk_loader: done' "$out/apk.log" && ok "the loader ran the library from the zip" ||
	{ fail "the loader did not finish"; sed 's/^/#   /' "$out/apk.log" | head; }

# The mapping record: APK!/ENTRY, the entry's offset, its table attached.
m=$(python3 - "$out/apk.data" "$off" "$lib" <<PY
import sys
sys.path.insert(0, "$here")
import uwdata
off, lib = int(sys.argv[2]), sys.argv[3]
for kind, r in uwdata.records(sys.argv[1]):
    if kind == "mapping" and r["path"].endswith("!/" + lib):
        print(r["path"], r["elf_offset"] == off, r["offset"] >= off,
              bool(r["flags"] & uwdata.MAP_TABLE), bool(r["flags"] & uwdata.MAP_BIAS))
        break
PY
)
expect "record: the mapping is /data/x.apk!/$lib at the entry's offset, table attached, bias known" \
	"/data/x.apk!/$lib True True True True" "$m"

# The checker (make bench's: every return address after a call in the
# file's bytes, the last frame the entry), on the guest's files; the
# library is read from the zip.  Samples whose pc is in the library: all.
croot=$tmp/checker-root
mkdir -p "$croot/lib" "$tmp/unstripped"
ln -s "$tmp/data" "$croot/data"
ln -s "$libdir" "$croot/lib/arm-linux-gnueabihf"
[ ! -e "$tmp/vdso.so" ] || cp "$tmp/vdso.so" "$croot/[vdso]"
judge() {
	/usr/bin/python3 - "$1" "$croot" "$tmp/unstripped" "$top" <<'PY'
import collections, sys
sys.path.insert(0, sys.argv[4] + "/bench/perf")
import analyze
d = analyze.load_uwdata(sys.argv[1])
chk = analyze.Checker(sys.argv[2], sys.argv[3])
n = ok = n_all = ok_all = 0
times = []
why = collections.Counter()
for s in d["samples"]:
    fr = analyze.uw_frames(s, d["procs"])
    good = bool(fr) and chk.check(fr, True, s[1] == analyze.STOP_NORETURN) is None \
        and analyze.complete_stop(s[1])
    n_all += 1
    ok_all += good
    if fr and fr[0][0] and "!/" in fr[0][0]:
        n += 1
        ok += good
        times.append(s[5])
        if not good:
            why[(analyze.STOP_NAMES[s[1]] if s[1] < len(analyze.STOP_NAMES) else s[1],
                 chk.check(fr, True) if fr else "no frames")] += 1
# samples in the library per second of its hot loop, and the median gap
# between two of them (microseconds)
rate = int(n / ((max(times) - min(times)) / 1e9)) if len(times) > 1 else 0
times.sort()
gaps = sorted(b - a for a, b in zip(times, times[1:]))
gap = gaps[len(gaps) // 2] // 1000 if gaps else 0
print(n, ok, n_all, ok_all, rate, gap, dict(why.most_common(3)))
PY
}
res=$(judge "$out/apk.data")
read -r n_lib ok_lib n_all ok_all rate gap rest <<<"$res"
if [ "${n_lib:-0}" -ge 500 ] && [ "$n_lib" = "$ok_lib" ]; then
	ok "every sample in the zip-mapped library fully unwound (the checker): $ok_lib of $n_lib ($ok_all of $n_all in all)"
else
	fail "samples in the zip-mapped library: ${ok_lib:-?} of ${n_lib:-?} fully unwound, wanted all of at least 500 ($res)"
fi

# The same in a child of the command (record -- sh -c ...), which the
# module follows: sampled once a period of its CPU time, as a second
# event on the process would sample it twice.  The guest's clock runs on
# while a loaded host takes the vCPU away, so a gap between samples can
# only grow: the median gap must be at least 0.8 of the 1 ms period (two
# events give half of it at most).  Comparing rates with the command's
# run did not hold: a host load stole half of one run but not the other
# (CI on arm64-6.1: 910 samples/s in the child against 507).  The floor
# of samples checks that the child was followed at all.
expect "record -- sh -c 'apk_loader ...' exits 0" 0 "$(cat "$out/child.rc" 2>/dev/null)"
res=$(judge "$out/child.data")
read -r c_lib c_ok c_all c_ok_all c_rate c_gap c_rest <<<"$res"
if [ "${c_lib:-0}" -ge 250 ] && [ "$c_lib" = "$c_ok" ] && [ "${c_gap:-0}" -ge 800 ]; then
	ok "in a followed child too: $c_ok of $c_lib fully unwound, $c_rate samples/s, a median gap of $c_gap us (the command: $rate, $gap us)"
else
	fail "in a followed child: ${c_ok:-?} of ${c_lib:-?} fully unwound, a median gap of ${c_gap:-?} us, at least 800 wanted ($res)"
	sed 's/^/#   /' "$out/child.log" | head -5
fi

# report on the host, every format: the module APK!/ENTRY, its functions.
rep() { "$UWPROF" report -q --symfs "$tmp/data" -i "$out/apk.data" "$@"; }
stack="main;hot_run;hot_mid_a;hot_mid_b"
rep -f folded >"$tmp/folded"
n_hot=$(awk '/hot_leaf/ {s += $NF} END {print s + 0}' "$tmp/folded")
# (a sample taken in a system call or page fault has [kernel] on top)
n_chain=$(grep -E ";$stack;hot_leaf(;\[kernel\])? " "$tmp/folded" | awk '{s += $NF} END {print s + 0}')
if [ "$n_hot" -ge 100 ] && [ "$n_chain" -eq "$n_hot" ]; then
	ok "report -f folded: all $n_hot samples in hot_leaf are under $stack"
else
	fail "report -f folded: $n_chain of $n_hot hot_leaf samples under $stack"
	grep hot_leaf "$tmp/folded" | sort -k2 -nr | head -3 | sed 's/^/#   /'
fi
if grep -q '\[x.apk' "$tmp/folded"; then
	fail "report -f folded: frames of the library left unnamed: $(grep -o '\[x.apk[^;]*' "$tmp/folded" | sort | uniq -c | head -3)"
else
	ok "report -f folded: every frame in the library named"
fi
rep -s dso >"$tmp/dso"
grep -q "x.apk!/$lib" "$tmp/dso" && ok "report -s dso: the module x.apk!/$lib" ||
	fail "report -s dso: $(grep -v '^#' "$tmp/dso" | head -4)"
rep >"$tmp/text"
grep -q ' hot_leaf' "$tmp/text" && ok "report (text): hot_leaf" || fail "report (text): no hot_leaf"
rep -f perf-script >"$tmp/ps"
grep -q "hot_mid_a (/data/x.apk!/$lib)" "$tmp/ps" && ok "report -f perf-script: hot_mid_a (/data/x.apk!/$lib)" ||
	fail "report -f perf-script: $(grep -m1 hot "$tmp/ps")"
rep -f svg -o "$tmp/f.svg" && grep -q 'hot_mid_b' "$tmp/f.svg" &&
	ok "report -f svg: the library's functions" || fail "report -f svg"
if rep -f pprof -o "$tmp/p.pb.gz" && command -v go >/dev/null; then
	raw=$(GOCACHE=${GOCACHE:-$BUILD/go-cache} go tool pprof -raw "$tmp/p.pb.gz" 2>&1)
	if echo "$raw" | grep -q "/data/x.apk!/$lib" && echo "$raw" | grep -q 'hot_run'; then
		ok "report -f pprof: mapping /data/x.apk!/$lib, its functions (go tool pprof -raw)"
	else
		fail "report -f pprof: $(echo "$raw" | grep -A4 '^Mappings')"
	fi
else
	skip "report -f pprof by go tool pprof: no go"
fi
# the device's own report read the library's symbols from the APK in place
if grep -qF "$stack;hot_leaf" "$out/apk.dev-folded" && grep -q "x.apk!/$lib" "$out/apk.dev-dso"; then
	ok "the device's uwprof report names the library and its functions from the APK"
else
	fail "device report: $(head -c 300 "$out/apk.dev-err") $(grep -m1 hot "$out/apk.dev-folded")"
fi
finish
