#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""figures.py: the stock corpus run of tests/host/stock_vm.sh as markdown,
for make bench-stock (scripts/doc-section.sh puts it into
docs/BENCHMARKS-corpus.md).  Reads what stock_vm.sh left: the checker's
counts per run (--results), its "where" and "why" lines per run
(--checks DIR/PROG.HZ.check), the tables' --stats output per file
(--stats DIR/BASENAME) and the files tabled with their packages
(--files, build/stock/guest.files)."""
import argparse
import bisect
import collections
import os
import re
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "perf"))
from analyze import Elf  # noqa: E402 - the checker's ELF layer, one for both


def pct(a, b):
    return "%.1f%%" % (100.0 * a / b) if b else "-"


def kind_cell(ok, n):
    return "%s of %d" % (pct(ok, n), n) if n else "-"


def file_of(loc):
    """The file of a checker 'last frame' (file:function, file+0xOFFSET, or
    'unmapped 0x...')."""
    if loc.startswith("unmapped"):
        return "(unmapped)"
    return re.split(r"[:+]", loc, maxsplit=1)[0]


def entry_of(path):
    """A 32-bit little-endian ELF file's entry point (Thumb bit cleared)."""
    try:
        with open(path, "rb") as f:
            h = f.read(28)
        return struct.unpack_from("<I", h, 24)[0] & ~1
    except (OSError, struct.error):
        return None


def report_of(path):
    """'uwprof table --report' of a file: its functions as sorted
    (start, size, source, name) and what could not be expressed, by the
    function's start: [(reason, detail)]."""
    funcs, notes = [], collections.defaultdict(list)
    if not os.path.exists(path):
        return funcs, notes
    for line in open(path, errors="replace"):
        f = line.rstrip("\n").split(" ", 4)
        if len(f) < 5 or line.startswith("#"):
            continue
        m = re.match(r"(\d+) bytes$", f[4])
        if m and f[1] == f[2]:
            funcs.append((int(f[1], 16), int(m.group(1)), f[3], f[0]))
        else:
            notes[int(f[1], 16)].append((f[3], f[4]))
    funcs.sort()
    return funcs, notes


def function_at(report, va):
    """'NAME at START (SOURCE; REASON: DETAIL)' of the function of @report
    holding @va, or of the code past the last function before it."""
    funcs, notes = report
    i = bisect.bisect_right([f[0] for f in funcs], va) - 1
    if i < 0:
        return "before the first function"
    start, size, src, name = funcs[i]
    what = "%s at 0x%x" % ("function" if name == "?" else name, start)
    if va >= start + size:
        return "past the end of %s (0x%x bytes; %s): no function known here" % (what, size, src)
    why = "; ".join("%s: %s" % n for n in notes.get(start, []))
    return "%s (%s%s)" % (what, src, "; " + why if why else "")


def stats_of(path):
    d = {}
    if not os.path.exists(path):
        return d
    for line in open(path, errors="replace"):
        m = re.match(r"\.text covered: (\d+) of (\d+) bytes", line)
        if m:
            d["covered"] = (int(m.group(1)), int(m.group(2)))
        m = re.match(r"functions: (\d+) in the inputs, (\d+) in the table(.*)", line)
        if m:
            d["funcs"] = int(m.group(2))
            src = dict((k, int(v)) for v, k in re.findall(r"(\d+) from ([\w-]+)", m.group(3)))
            d["exidx"] = src.get("exidx", 0)
        m = re.match(r"functions discovered \(no symbol\): (\d+)", line)
        if m:
            d["found"] = int(m.group(1))
        m = re.search(r"prologue-refused (\d+)", line)
        if m and line.startswith("not expressed"):
            d["refused"] = int(m.group(1))
    return d


def main():
    ap = argparse.ArgumentParser()
    for a in ("--results", "--checks", "--stats", "--reports", "--files", "--root",
              "--kernel", "--command", "--top"):
        ap.add_argument(a, required=True)
    ap.add_argument("--vm-seconds", type=int, default=0)
    a = ap.parse_args()

    runs = []   # (prog, hz, counts)
    for line in open(a.results):
        f = line.split()
        runs.append((f[0], int(f[1]), [int(x) for x in f[2:11]]))
    progs = list(dict.fromkeys(r[0] for r in runs))
    freqs = sorted({r[1] for r in runs})
    files = [l.split() for l in open(a.files) if l.strip()]
    # the entry function of each program: the first 64 bytes from its entry
    # point (the checker's rule for a stripped program's _start)
    entries = {}
    for f in files:
        e = entry_of(os.path.join(a.root, f[0].lstrip("/")))
        if e is not None and f[1] not in ("libc6",) and not f[0].endswith(".so") \
                and ".so." not in f[0]:
            entries[os.path.basename(f[0])] = e

    # The checker's "file+0xOFFSET" is an offset in the file: the link
    # address of the byte before it (a return address belongs to the call
    # before it), from the file's program headers.
    paths = {os.path.basename(f[0]): os.path.join(a.root, f[0].lstrip("/"))
             for f in files}
    paths["[vdso]"] = os.path.join(a.root, "[vdso]")
    elves = {}

    def link_before(fname, off):
        if fname not in elves:
            try:
                elves[fname] = Elf(paths[fname]) if fname in paths else None
            except (OSError, Exception):  # noqa: BLE001 - any unreadable file
                elves[fname] = None
        va = elves[fname].vaddr(off & ~1) if elves[fname] else None
        return va - 1 if va is not None else None

    def at_entry(loc):
        m = re.match(r"(.*)\+0x([0-9a-f]+)$", loc)
        if not m or m.group(1) not in entries:
            return False
        va = link_before(m.group(1), int(m.group(2), 16))
        return va is not None and entries[m.group(1)] <= va < entries[m.group(1)] + 0x40

    def label(loc, stop):
        return stop + (" at `_start`" if at_entry(loc) else "")

    where, why = {}, {}
    for p, hz, _ in runs:
        w, y = [], []
        for line in open(os.path.join(a.checks, "%s.%d.check" % (p, hz))):
            f = line.split()
            if f and f[0] == "where":
                w.append((f[1], f[2], " ".join(f[3:-1]), int(f[-1])))
            elif f and f[0] == "why":
                y.append((f[1], int(f[2]), " ".join(f[3:])))
        where[(p, hz)], why[(p, hz)] = w, y

    try:
        commit = subprocess.run(["git", "-C", a.top, "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip() or "unknown"
        dirty = subprocess.run(["git", "-C", a.top, "diff", "--quiet", "HEAD", "--"]).returncode
        commit += "+changes" if dirty else ""
    except OSError:
        commit = "unknown"
    L = []
    w = L.append
    w("## Stock Debian packages as shipped")
    w("")
    w("Measured by `%s` (tests/host/stock_vm.sh with `STOCK_FIGURES`) at "
      "commit %s, %s, on the %s kernel under plain TCG (2 vCPUs; the VM ran %d s; "
      "host load average %s at the end)." % (
          a.command, commit, time.strftime("%Y-%m-%d", time.gmtime()), a.kernel,
          a.vm_seconds, open("/proc/loadavg").read().split()[0]))
    w("")
    w("Programs (bench/stock/programs.sh) and every file they load, from "
      "Debian 12's armhf packages exactly as shipped (`scripts/build-stock.sh`: "
      "`apt-get download`, `dpkg -x`; stripped, no debug files, no libc6-dbg): "
      + ", ".join("`%s` (%s %s)" % (f[0], f[1], f[2]) for f in files) + ". "
      "Tables: `uwprof table FILE --prologue-analysis` on each of these files "
      "and on the kernel's vDSO, nothing else. Recorded with the module and "
      "the static armhf `uwprof record -F HZ`; every sample judged by "
      "`bench/perf/analyze.py --check` (every return address after a call in "
      "the mapped file's bytes, the walk ending at `_start` (the entry point "
      "of the stripped program, its first 64 bytes), the loader's entry or "
      "the C library's clone), main thread and other threads apart.")
    w("")
    w("Fully unwound: the checker accepts every frame and the module ended "
      "the walk as complete (`root`, or a call that never returns). To the "
      "entry: the checker accepts every frame up to the thread's outermost "
      "one whatever the module's stop, so it also counts walks the module "
      "stopped `refused` at a stripped program's `_start`, which no table "
      "row marks as the root: the share a root row for the entry point "
      "would make fully unwound.")
    w("")
    w("| program | Hz | samples | fully unwound | main thread | other threads | to the entry: main thread | other threads |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|")
    for p, hz, c in runs:
        w("| %s | %d | %d | **%s** | %s | %s | %s | %s |" % (
            p, hz, c[0], pct(c[1], c[0]), kind_cell(c[3], c[2]), kind_cell(c[5], c[4]),
            pct(c[7], c[2]), pct(c[8], c[4])))
    w("")
    w("What stops the samples that are not fully unwound, per run and thread "
      "kind: the module's stop reason, or for a walk the module ended as "
      "complete (`root`) what the checker found wrong with it.")
    w("")
    w("| program | Hz | thread | reason | samples | of the thread kind's samples |")
    w("|---|---:|---|---|---:|---:|")
    for p, hz, c in runs:
        for kind, n, reason in why[(p, hz)]:
            tot = c[2] if kind == "main" else c[4]
            w("| %s | %d | %s | %s | %d | %s |" % (p, hz, kind, reason, n, pct(n, tot)))
    w("")
    w("Where they stop, by file, all runs together: the file of the last "
      "frame of each sample not fully unwound (the code whose table row "
      "refused, or where the walk went wrong), by stop reason.")
    w("")
    byfile = collections.Counter()
    addrs = collections.defaultdict(set)
    total_bad = 0
    for (p, hz), ws in where.items():
        for kind, stop, loc, n in ws:
            byfile[(file_of(loc), label(loc, stop))] += n
            addrs[(file_of(loc), label(loc, stop))].add(loc)
            total_bad += n
    w("| file | stop | samples | of all samples not fully unwound | distinct last frames |")
    w("|---|---|---:|---:|---:|")
    for (fname, stop), n in byfile.most_common():
        w("| `%s` | %s | %d | %s | %d |" % (fname, stop, n, pct(n, total_bad),
                                          len(addrs[(fname, stop)])))
    w("")
    w("The last frames themselves, most frequent first, at most 10 per run "
      "(`file:function` where a dynamic symbol's extent covers it, else "
      "`file+0xOFFSET`, an offset in the file), with the function "
      "`uwprof table FILE --prologue-analysis --report` places there: its "
      "start, where its rows came from and, when prologue analysis refused "
      "it, why:")
    w("")
    reports = {}

    def func_of(loc):
        m = re.match(r"(.*)\+0x([0-9a-f]+)$", loc) or re.match(r"([^:]*):(.*)$", loc)
        if not m or loc.startswith("unmapped"):
            return ""
        if m.group(1) not in reports:
            reports[m.group(1)] = report_of(os.path.join(a.reports, m.group(1)))
        if "+0x" not in loc:    # file:function, a dynamic symbol
            hit = [f[0] for f in reports[m.group(1)][0] if f[3] == m.group(2)]
            return function_at(reports[m.group(1)], hit[0]) if hit else ""
        va = link_before(m.group(1), int(m.group(2), 16))
        return function_at(reports[m.group(1)], va) if va is not None else ""

    byfunc = collections.Counter()
    for (p, hz), ws in where.items():
        for kind, stop, loc, n in ws:
            byfunc[(file_of(loc), label(loc, stop), func_of(loc))] += n
    w("The same by function, all runs and thread kinds together, the 25 "
      "that stop most samples (the function `uwprof table FILE "
      "--prologue-analysis --report` places at the last frame: its start, "
      "where its rows came from and, when prologue analysis refused it, "
      "why):")
    w("")
    w("| file | stop | function in the table | samples | of all samples not fully unwound |")
    w("|---|---|---|---:|---:|")
    for (fname, stop, fn), n in byfunc.most_common(25):
        w("| `%s` | %s | %s | %d | %s |" % (fname, stop, fn.replace("|", "\\|") or "-",
                                         n, pct(n, total_bad)))
    w("")

    w("| program | Hz | thread | stop | last frame | samples | of the run's samples | its function in the table (`--report`) |")
    w("|---|---:|---|---|---|---:|---:|---|")
    for p, hz, c in runs:
        for kind, stop, loc, n in where[(p, hz)][:10]:
            w("| %s | %d | %s | %s | `%s` | %d | %s | %s |" % (
                p, hz, kind, label(loc, stop), loc, n, pct(n, c[0]),
                func_of(loc).replace("|", "\\|")))
    w("")
    w("Each file's table (`uwprof table FILE --prologue-analysis --stats`): "
      "`.text` covered by rows, functions in the table, of them from "
      "`.ARM.exidx`, starts found by function discovery, and functions "
      "prologue analysis refused (no rows: a sample there stops `refused`).")
    w("")
    w("| file | package | .text covered | functions | from exidx | discovered | refused |")
    w("|---|---|---:|---:|---:|---:|---:|")
    for f in files + [["[vdso]", "the kernel", ""]]:
        s = stats_of(os.path.join(a.stats, os.path.basename(f[0])))
        if not s:
            continue
        cov = s.get("covered", (0, 0))
        w("| `%s` | %s | %s of %d | %d | %d | %d | %d |" % (
            f[0], f[1], pct(cov[0], cov[1]), cov[1], s.get("funcs", 0),
            s.get("exidx", 0), s.get("found", 0), s.get("refused", 0)))
    print("\n".join(L))


if __name__ == "__main__":
    main()
