#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Checks the benchmark VM's results and writes docs/BENCHMARKS.md.

Input: the directory run-vm.sh filled (times/, sizes/, data/, machine.txt)
plus host.txt from bench.sh.  Every figure on the page comes from there.

The success-rate checker verifies every frame of every sample itself, for
uwprof and for perf alike (the module's own stop reason is only used to
name why an unwind that fails the check ended):
  - every return address lies in an executable file mapping of the process,
    and the instruction just before it is a call: for Thumb a 32-bit BL or
    BLX (immediate) ending at it or a 16-bit BLX (register); for ARM a BL,
    BLX (immediate) or BLX (register); decoded with capstone from the very
    bytes of the file that was mapped;
  - the last frame is a thread's outermost frame: the entry function of the
    executable (_start, from the unstripped build's symbol table) or of the
    dynamic loader (its ELF entry point) for the main thread; a C library
    thread entry (glibc's and musl's clone, bionic's __bionic_clone and
    __start_thread, named by the nearest symbol at or before it, since
    glibc's child path lies past __clone's symbol size) for the others; or,
    for a walk the module ended as "noreturn", the return address of the
    call the table marks as never returning (a call after which the caller
    cannot return; its call instruction is checked like any other).
A sample passing both is fully unwound (DESIGN.md section 5).  Main-thread
samples (tid == pid) and other threads' are counted apart.

JIT code (in anonymous memory, or in no mapping) is checked from the code
bytes the JIT's jit-PID.dump recorded, which record copies into the data
file (docs/DATAFILE.md, type 10): a JIT return address must lie in code
that dump loaded and follow a call there.  --check prints how many JIT
return addresses it checked and how many follow a call ("jit N OK").
"""
import argparse
import bisect
import collections
import gzip
import io
import json
import os
import re
import statistics
import struct
import sys
import zipfile

import capstone
from capstone import arm as cs_arm
from elftools.elf.elffile import ELFFile

STOP_NAMES = ["root", "no-table", "refused", "bad-sp", "no-progress",
              "read-fault", "bad-opcode", "max-depth", "noreturn", "budget",
              "jit-chain"]
STOP_NORETURN = STOP_NAMES.index("noreturn")

# C library code where a thread other than the main one starts.
THREAD_ENTRIES = ("clone", "__clone", "__clone3", "thread_start",
                  "__bionic_clone", "__start_thread")


def kv_file(path):
    d = {}
    if os.path.exists(path):
        for line in open(path, encoding="utf-8", errors="replace"):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                d[k] = v
    return d


# ---- the uwprof data file (docs/DATAFILE.md, tools/uwprof/lib/datafile.h) ----

LOOKUP_FIELDS = ("pc_hits", "pc_misses", "ra_hits", "ra_misses", "ra_loop")


def stats_lookups(flags, p):
    """The lookup_* counters of a stats record (uapi/uwprof.h), or None
    where the module or the recorder was older than them."""
    if not flags & 1 or len(p) < 296:       # UWPROF_STATS_LOOKUPS
        return None
    return dict(zip(LOOKUP_FIELDS, struct.unpack_from("<5Q", p, 256)))


def lookup_rates(lk):
    """(sampled pcs' hit rate, return addresses', the caller loop's share
    of all return addresses), in percent; None without counters."""
    if not lk:
        return None
    return (pct(lk["pc_hits"], lk["pc_hits"] + lk["pc_misses"]),
            pct(lk["ra_hits"], lk["ra_hits"] + lk["ra_misses"]),
            pct(lk["ra_loop"], lk["ra_hits"] + lk["ra_misses"]))


def block_samples(p):
    """The sample records of a UWD_SAMPLES record's payload."""
    pos = 0
    while pos + 32 <= len(p):
        size = struct.unpack_from("<H", p, pos)[0]
        if size < 32:
            break
        yield p[pos:pos + size]
        pos += (size + 7) & ~7


def load_uwdata(path):
    b = open(path, "rb").read()
    magic, _ver, hsz = struct.unpack_from("<8sII", b, 0)
    if magic != b"UWPROFD\0":
        raise ValueError(path + ": not a uwprof data file")
    pos = hsz
    samples, stats, htimes = [], None, []
    procs = Processes()
    jit = collections.defaultdict(list)     # pid -> [(start, code bytes)]
    while pos + 8 <= len(b):
        typ, size = struct.unpack_from("<II", b, pos)
        if size < 8 or pos + size > len(b):
            break
        p = b[pos + 8:pos + size]
        if typ in (1, 11):
            # one sample, or a block of them back to back (each its own
            # size, rounded up to 8)
            for q in (p,) if typ == 1 else block_samples(p):
                (_rs, _rt, stop, flags, _cpu, pid, tid, t,
                 nf, hns) = struct.unpack_from("<HHBBHIIQII", q, 0)
                frames = struct.unpack_from("<%dI" % nf, q, 32)
                samples.append((pid, stop, flags, frames, tid, t))
                htimes.append(hns)
        elif typ == 2:
            v = struct.unpack_from("<8I", p, 0)
            elf_off, t = struct.unpack_from("<IQ", p, 68)
            path_ = p[80:].split(b"\0")[0].decode(errors="replace")
            # a library inside an APK ("APK!/ENTRY"): offsets in the ELF
            off = v[3] - elf_off if elf_off <= v[3] else v[3]
            procs.mapping(dict(pid=v[0], start=v[1], end=v[2], offset=off,
                               path=path_, time=t))
        elif typ == 3:
            pid, pflags, t = struct.unpack_from("<IIQ", p, 0)
            exe = p[16:].split(b"\0")[0].decode(errors="replace")
            procs.process(pid, pflags & 1, t, exe)
        elif typ == 4:
            f = struct.unpack_from("<II6Q16Q2Q", p, 0)
            stats = dict(taken=f[2], delivered=f[3], dropped=f[4], kctx=f[5],
                         hsum=f[6], hmax=f[7], stop=list(f[8:24]),
                         frames=f[24], bytes=f[25],
                         lookups=stats_lookups(f[1], p))
        elif typ == 7:
            pid, ppid, t = struct.unpack_from("<IIQ", p, 0)
            procs.fork(pid, ppid, t)
        elif typ == 10:
            pid, fmt, n, _ = struct.unpack_from("<IIII", p, 0)
            if fmt == JIT_DUMP:
                jit[pid] += jitdump_code(p[16:16 + n])
        pos += size
    for code in jit.values():
        code.sort(key=lambda c: c[0])
    return dict(samples=samples, maps=procs.all_maps, procs=procs,
                stats=stats, size=len(b), htimes=htimes, jit=jit)


JIT_DUMP = 2            # docs/DATAFILE.md, type 10: a jitdump file
JIT_PATH = "[jit]"      # a frame in code a jitdump loaded


def jitdump_code(b):
    """(address, code bytes) of each code-load record of a jitdump (perf's
    format: a header, then records of id, size, time and a body)."""
    out = []
    if len(b) < 40 or struct.unpack_from("<I", b, 0)[0] != 0x4A695444:
        return out
    pos = max(40, struct.unpack_from("<I", b, 8)[0])
    while pos + 16 <= len(b):
        rid, size = struct.unpack_from("<II", b, pos)
        if size < 16 or pos + size > len(b):
            break
        if rid == 0 and size >= 16 + 41:
            _pid, _tid, _vma, addr, n, _idx = struct.unpack_from("<IIQQQQ", b, pos + 16)
            name_end = b.find(b"\0", pos + 56, pos + size)
            if name_end >= 0 and name_end + 1 + n <= pos + size:
                out.append((addr, b[name_end + 1:name_end + 1 + n]))
        pos += size
    return out


def jit_at(code, a):
    """(start, bytes) of the code that holds @a, the one loaded last at
    the highest start at or below it, or None."""
    i = bisect.bisect_right([c[0] for c in code], a)
    for start, data in reversed(code[:i]):
        if start <= a < start + len(data):
            return start, data
    return None


class Processes:
    """Which mappings a sample of a pid at a time sees (docs/DATAFILE.md):
    a process's image runs from its fork or exec to the next exec; a fork
    gives the child its parent's mappings of that time; a mapping counts
    from the time record saw it (0: there before recording began)."""

    def __init__(self):
        # pid -> [image]; an image: dict(start=time, maps=[...], exe=path)
        self.images = collections.defaultdict(list)
        self.all_maps = []

    def image(self, pid, t):
        imgs = self.images[pid]
        for img in reversed(imgs):
            if img["start"] <= t:
                return img
        if not imgs:
            imgs.append(dict(start=0, maps=[], exe=""))
        return imgs[0]

    def mapping(self, m):
        self.all_maps.append(m)
        self.image(m["pid"], m["time"])["maps"].append(m)

    def process(self, pid, execd, t, exe):
        if execd or not self.images[pid]:
            self.images[pid].append(dict(start=t if execd else 0, maps=[],
                                         exe=exe))
        else:
            self.images[pid][-1]["exe"] = exe

    def fork(self, pid, ppid, t):
        parent = self.image(ppid, t)
        maps = [dict(m, pid=pid) for m in parent["maps"] if m["time"] <= t]
        self.images[pid].append(dict(start=t, maps=maps, exe=parent["exe"]))

    def resolve(self, pid, t, a):
        """(path, file offset) of address @a, or (None, a)."""
        best = None
        for m in self.image(pid, t)["maps"]:
            if m["start"] <= (a & ~1) < m["end"]:
                # the latest mapping there by the sample's time; one seen
                # only later (read from /proc after the fact) if none
                if best is None or (m["time"] <= t and
                                    (best["time"] > t or m["time"] >= best["time"])):
                    best = m
        if best is None:
            return (None, a)
        return (best["path"], a - best["start"] + best["offset"])


def p99(values):
    """The nearest-rank 99th percentile, or NaN without values."""
    if not values:
        return float("nan")
    v = sorted(values)
    return v[max(0, -(-99 * len(v) // 100) - 1)]


# ---- ELF files as mapped in the VM ----

def read_elf_bytes(path):
    """The bytes of the ELF at @path: a file, or "APK!/ENTRY", the stored
    entry ENTRY of zip APK (docs/USAGE.md, "Libraries inside APKs")."""
    if not os.path.exists(path) and "!/" in path:
        archive, entry = path.split("!/", 1)
        with zipfile.ZipFile(archive) as z:
            if z.getinfo(entry).compress_type != zipfile.ZIP_STORED:
                raise ValueError(path + ": not stored")
            return z.read(entry)
    return open(path, "rb").read()


class Elf:
    def __init__(self, path, symfile=None):
        self.data = read_elf_bytes(path)
        with io.BytesIO(self.data) as f:
            e = ELFFile(f)
            self.entry = e.header.e_entry & ~1
            self.loads = [(s["p_offset"], s["p_vaddr"], s["p_filesz"])
                          for s in e.iter_segments() if s["p_type"] == "PT_LOAD"]
        # The entry function's range: _start from a symbol table, else a
        # few instructions from the entry point (the loader's _start).
        self.entry_range = (self.entry, self.entry + 0x40)
        self.mapsyms = []
        self.funcs = []
        self.all_funcs = []     # with sizeless and sized alike, by address
        for p in ([symfile] if symfile else []) + [path]:
            with io.BytesIO(read_elf_bytes(p)) as f:
                e = ELFFile(f)
                for sec in (".symtab", ".dynsym"):
                    st = e.get_section_by_name(sec)
                    if st and not self.funcs:
                        fs = [(x["st_value"] & ~1, x["st_size"], x.name)
                              for x in st.iter_symbols()
                              if x["st_info"]["type"] == "STT_FUNC"]
                        self.funcs = sorted(f for f in fs if f[1])
                        self.all_funcs = sorted(fs)
        for p in ([symfile] if symfile else []) + [path]:
            with io.BytesIO(read_elf_bytes(p)) as f:
                e = ELFFile(f)
                st = e.get_section_by_name(".symtab")
                if not st:
                    continue
                for s in st.iter_symbols():
                    if s.name == "_start" and s["st_size"]:
                        a = s["st_value"] & ~1
                        self.entry_range = (a, a + s["st_size"])
                    elif s.name in ("$a", "$t", "$d") or s.name.startswith(("$a.", "$t.", "$d.")):
                        self.mapsyms.append((s["st_value"], s.name[1]))
                self.mapsyms.sort()
                break

    def vaddr(self, off):
        for o, v, n in self.loads:
            if o <= off < o + n:
                return off - o + v
        return None

    @staticmethod
    def _last_at_or_before(table, vaddr):
        """The last (address, ...) tuple of sorted @table at or before
        @vaddr, or None."""
        i = bisect.bisect_right(table, vaddr, key=lambda t: t[0])
        return table[i - 1] if i else None

    def symbolize(self, vaddr):
        best = self._last_at_or_before(self.funcs, vaddr)
        if best and vaddr < best[0] + best[1]:
            return best[2]
        return None

    def nearest(self, vaddr, limit=0x100):
        """The name of the last function symbol at or before @vaddr,
        at most @limit bytes before it, whatever its size."""
        best = self._last_at_or_before(self.all_funcs, vaddr)
        if best and vaddr - best[0] < limit:
            return best[2]
        return None

    def mode_at(self, vaddr):
        """'t' or 'a' from mapping symbols, None if unknown."""
        m = self._last_at_or_before(self.mapsyms, vaddr)
        return m[1] if m and m[1] in ("a", "t") else None


CS_T = capstone.Cs(capstone.CS_ARCH_ARM, capstone.CS_MODE_THUMB)
CS_A = capstone.Cs(capstone.CS_ARCH_ARM, capstone.CS_MODE_ARM)
CALLS = (cs_arm.ARM_INS_BL, cs_arm.ARM_INS_BLX)


def one_insn(md, code, addr):
    for i in md.disasm(code, addr):
        return i
    return None


def call_before(data, off, mode):
    """Is the instruction ending at file offset @off a call?  mode 't',
    'a' or None (try both)."""
    if off < 4 or off > len(data):
        return False
    if mode in ("t", None):
        i = one_insn(CS_T, data[off - 4:off], off - 4)
        if i and i.size == 4 and i.id in CALLS:
            return True
        i = one_insn(CS_T, data[off - 2:off], off - 2)
        if i and i.size == 2 and i.id == cs_arm.ARM_INS_BLX:
            return True
    if mode in ("a", None) and off % 4 == 0:
        i = one_insn(CS_A, data[off - 4:off], off - 4)
        if i and i.id in CALLS:
            return True
    return False


class Checker:
    def __init__(self, root, unstripped):
        self.root, self.unstripped, self.elves = root, unstripped, {}

    def elf(self, path):
        if path not in self.elves:
            host = os.path.join(self.root, path.lstrip("/"))
            sym = None
            if path.startswith("/bench/bin/"):
                sym = os.path.join(self.unstripped, os.path.basename(path))
            else:
                sym = self.debug_file(host)
            try:
                self.elves[path] = Elf(host, sym)
            except (OSError, Exception):  # noqa: BLE001 - any unreadable file
                self.elves[path] = None
        return self.elves[path]

    def debug_file(self, host):
        """The separate debug file of @host where the root keeps debug
        packages' files (by build-id), for its full symbol table."""
        try:
            with io.BytesIO(read_elf_bytes(host)) as f:
                sec = ELFFile(f).get_section_by_name(".note.gnu.build-id")
                bid = next((n["n_desc"] for n in sec.iter_notes()
                            if n["n_type"] == "NT_GNU_BUILD_ID"), None) if sec else None
        except (OSError, Exception):  # noqa: BLE001 - any unreadable file
            return None
        if not bid:
            return None
        d = os.path.join(self.root, "usr/lib/debug/.build-id", bid[:2], bid[2:] + ".debug")
        return d if os.path.exists(d) else None

    def where(self, frame, is_ra):
        """'file:function' of a frame, else 'file+0xOFFSET' with the file
        offset uw_frames gave it (Thumb bit as the sample had it), the
        same numbers every other line about frames uses."""
        path, off = frame
        if path is None:
            return "unmapped 0x%x" % off
        if path == JIT_PATH:
            return "jit 0x%x" % off
        e = self.elf(path)
        base = os.path.basename(path)
        va = e.vaddr(off & ~1) if e else None
        name = e.symbolize(va - (1 if is_ra else 0)) if va is not None else None
        return "%s:%s" % (base, name) if name else "%s+0x%x" % (base, off)

    jit_checked = jit_ok = 0

    def check_jit(self, code, a):
        """A JIT return address @a: in code @code loaded, after a call."""
        self.jit_checked += 1
        c = jit_at(code, a & ~1)
        if c is None:
            return "JIT return address outside the code jit-PID.dump loaded"
        if not call_before(c[1], (a & ~1) - c[0], "t" if a & 1 else "a"):
            return "JIT return address not after a call"
        self.jit_ok += 1
        return None

    def check(self, frames, thumb_bit_reliable, noreturn=False, jit=()):
        """frames: [(path or None, file offset with the Thumb bit as given)],
        pc first, JIT code's as (JIT_PATH, address) with @jit the code its
        process's jitdump loaded; @noreturn when the walk ended at a call
        marked as never returning.  Returns None if fully unwound, else a
        reason."""
        for k, (path, off) in enumerate(frames):
            if path == JIT_PATH:
                why = self.check_jit(jit, off) if k else None
                if why:
                    return why
                continue
            if path is None:
                return "frame outside executable file mappings"
            e = self.elf(path)
            if e is None:
                return "frame in an unreadable file"
            if k == 0:
                continue
            a = off & ~1
            if off & 1:
                mode = "t"
            elif thumb_bit_reliable:
                mode = "a"
            else:
                va = e.vaddr(a)
                mode = e.mode_at(va - 1) if va is not None else None
            if not call_before(e.data, a, mode):
                return "return address not after a call"
        path, off = frames[-1]
        if path == JIT_PATH:
            return "ended in JIT code"
        e = self.elf(path)
        va = e.vaddr(off & ~1)
        # A return address belongs to the call before it.
        if len(frames) > 1 and va is not None:
            va -= 1
        lo, hi = e.entry_range
        if va is not None and lo <= va < hi:
            return None
        if va is not None and len(frames) > 1 and e.nearest(va) in THREAD_ENTRIES:
            return None
        if noreturn and len(frames) > 1:
            return None
        return "ended in %s before the entry" % os.path.basename(path)


# ---- uwprof results ----

def uw_frames(sample, procs, jit=()):
    """The frames as (path, file offset); in anonymous memory or in no
    mapping, code the process's jitdump loaded as (JIT_PATH, address)."""
    out = []
    for a in sample[3]:
        path, off = procs.resolve(sample[0], sample[5], a)
        if path in (None, "//anon") and jit and jit_at(jit, a & ~1):
            path, off = JIT_PATH, a
        out.append((path, off))
    return out


def complete_stop(stop):
    return stop in (0, STOP_NORETURN)


def check_uwprof(chk, d, exe=None, window=None):
    """Results overall, and by thread kind in res_kind["main"/"other"].
    @exe: only samples of processes running that executable; @window:
    (from, to) in ms since the first of those samples."""
    samples = d["samples"]
    if exe:
        samples = [s for s in samples
                   if d["procs"].image(s[0], s[5])["exe"] == exe]
    if window and samples:
        t0 = min(s[5] for s in samples)
        samples = [s for s in samples
                   if window[0] <= (s[5] - t0) / 1e6 < window[1]]
    res = collections.Counter()
    res_kind = {"main": collections.Counter(), "other": collections.Counter()}
    where = collections.Counter()
    res_why = collections.Counter()     # (kind, reason) of those that fail
    depth = []
    for s in samples:
        jit = d["jit"].get(s[0], ())
        fr = uw_frames(s, d["procs"], jit)
        why = chk.check(fr, True, s[1] == STOP_NORETURN, jit) if fr else "no frames"
        stop = STOP_NAMES[s[1]] if s[1] < len(STOP_NAMES) else str(s[1])
        kind = "main" if s[4] == s[0] else "other"
        res_kind[kind]["ok" if why is None and complete_stop(s[1]) else "not"] += 1
        if why is None and complete_stop(s[1]):
            res["ok"] += 1
            depth.append(len(fr))
            continue
        if fr:
            where[(kind, stop, chk.where(fr[-1], len(fr) > 1))] += 1
        if why is None:
            reason = "stop %s (frames check out)" % stop
        elif complete_stop(s[1]):
            reason = "%s, but %s" % (stop, why)
        else:
            reason = stop
        res[reason] += 1
        res_why[(kind, reason)] += 1
    res.kinds = res_kind
    res.why = res_why
    return res, depth, where


# ---- perf results ----

HDR = re.compile(r"^(\S.*?)\s+(\d+)/(\d+)\s+[\d.]+:\s+(.*)$")
MMAP = re.compile(r"PERF_RECORD_MMAP2? (\d+)/\d+: \[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+|0)[^\]]*\]: (\S+) (.*)$")
FRAME = re.compile(r"^\s+([0-9a-f]+) \((.*)\)$")


def perf_samples(path, comm):
    """Yields (user frames as (path, offset)) for each sample of @comm;
    a sample with kernel frames only yields []."""
    cur = None
    with gzip.open(path, "rt", errors="replace") as f:
        for line in f:
            if line[:1] not in ("\t", " ", "\n"):
                if cur is not None:
                    yield cur
                cur = None
                m = HDR.match(line.rstrip("\n"))
                if m and m.group(4).startswith("cpu-clock") and m.group(1) == comm:
                    cur = []
                continue
            if cur is None:
                continue
            m = FRAME.match(line.rstrip("\n"))
            if not m:
                continue
            a, dso = int(m.group(1), 16), m.group(2)
            if dso.startswith("[kernel") or (dso == "[unknown]" and a >= 0xbf000000 and not cur):
                continue
            if dso.startswith("/"):
                cur.append((dso, a))
            else:
                cur.append((None, a))
    if cur is not None:
        yield cur


def check_perf(chk, path, comm):
    """Results, depths of the fully unwound, samples with kernel frames
    only, and the user frames of every other sample."""
    res = collections.Counter()
    depth, frames = [], []
    kernel_only = 0
    for fr in perf_samples(path, comm):
        if not fr:
            kernel_only += 1
            continue
        frames.append(len(fr))
        why = chk.check(fr, False)
        if why is None:
            res["ok"] += 1
            depth.append(len(fr))
        else:
            res[why] += 1
    return res, depth, kernel_only, frames


def perf_stats(path):
    d = {}
    if not os.path.exists(path):
        return d
    section = "all"
    for line in open(path, errors="replace"):
        if line.strip().endswith("stats:"):
            section = line.strip()[:-1]
            if section == "Aggregated stats":
                section = "all"
        m = re.match(r"\s*(\w+) events:\s+(\d+)", line)
        if m:
            d[(section, m.group(1))] = int(m.group(2))
    return d


# ---- the page ----

def med(xs):
    return statistics.median(xs) if xs else float("nan")


def pct(a, b):
    return 100.0 * a / b if b else float("nan")


def fmt_bytes(n):
    if n >= 1 << 20:
        return "%.1f MiB" % (n / (1 << 20))
    if n >= 1 << 10:
        return "%.1f KiB" % (n / (1 << 10))
    return "%d B" % n


def read_times(out, prog, cfg):
    rows = []
    p = os.path.join(out, "times", "%s.%s" % (prog, cfg))
    if os.path.exists(p):
        for line in open(p):
            d = dict(kv.split("=") for kv in line.split())
            rows.append((int(d["wall_ns"]) / 1e9,
                         (int(d["user_us"]) + int(d["sys_us"])) / 1e6,
                         int(d["status"]), int(d.get("nvcsw", -1))))
    return rows


def read_sizes(out, prog, cfg):
    p = os.path.join(out, "sizes", "%s.%s" % (prog, cfg))
    d = {}
    if os.path.exists(p):
        for line in open(p):
            r, s = line.split()
            d[int(r)] = int(s)
    return d


def parse_tables_log(path):
    """name -> dict of the 'uwprof table --stats' figures."""
    t, cur = {}, None
    for line in open(path, errors="replace"):
        if line.startswith("== "):
            cur = line.split()[1]
            t[cur] = {}
            continue
        if cur is None:
            continue
        m = re.match(r"functions: (\d+) in the inputs, (\d+) in the table", line)
        if m:
            t[cur]["funcs"] = int(m.group(2))
        m = re.match(r"bytes: (\d+) total", line)
        if m:
            t[cur]["bytes"] = int(m.group(1))
        m = re.match(r"bytes/function: ([\d.]+)", line)
        if m:
            t[cur]["per_func"] = float(m.group(1))
        m = re.match(r"\.text covered: (\d+) of (\d+)", line)
        if m:
            t[cur]["covered"] = (int(m.group(1)), int(m.group(2)))
        m = re.match(r"input unwind sections: \.ARM\.exidx (\d+) \+ \.ARM\.extab (\d+) = (\d+) bytes \((\d+) entries.*?\.debug_frame (\d+)", line)
        if m:
            t[cur]["exidx"] = int(m.group(3))
            t[cur]["exidx_entries"] = int(m.group(4))
            t[cur]["debug_frame"] = int(m.group(5))
        if "no unwind information" in line or line.startswith("(no table)"):
            t[cur]["none"] = True
    return t


def dpkg_version(root, pkg):
    try:
        txt = open(os.path.join(root, "var/lib/dpkg/status"), errors="replace").read()
    except OSError:
        return "?"
    for block in txt.split("\n\n"):
        if re.search(r"^Package: %s$" % re.escape(pkg), block, re.M):
            m = re.search(r"^Version: (.*)$", block, re.M)
            if m:
                return m.group(1)
    return "?"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", metavar="UWDATA",
                    help="judge one uwprof data file and print the counts")
    ap.add_argument("--exe", metavar="PATH",
                    help="--check: only samples of processes running PATH")
    ap.add_argument("--window", metavar="FROM,TO",
                    help="--check: only samples FROM to TO ms after the first")
    ap.add_argument("--out")
    ap.add_argument("--root")
    ap.add_argument("--unstripped")
    ap.add_argument("--tables-log")
    ap.add_argument("--doc")
    ap.add_argument("--total-seconds", type=int, default=0)
    ap.add_argument("--command", default="make bench",
                    help="the command that ran the benchmark, for the page")
    ap.add_argument("--summary", metavar="JSON",
                    help="also write the headline figures there, for --assemble")
    ap.add_argument("--assemble", action="store_true",
                    help="write --doc from the kernels' pages and summaries")
    ap.add_argument("--page", action="append", default=[], metavar="KERNEL=PAGE",
                    help="--assemble: a kernel's page, the first the main one")
    ap.add_argument("--kernel-summary", action="append", default=[],
                    metavar="KERNEL=JSON", help="--assemble: a kernel's --summary")
    a = ap.parse_args()
    if a.check and not (a.root and a.unstripped):
        ap.error("--check needs --root and --unstripped")
    if a.check:
        return check_one(a)
    if a.assemble:
        return assemble(a)
    if not (a.out and a.tables_log and a.doc and a.root and a.unstripped):
        ap.error("--out, --tables-log, --doc, --root and --unstripped are "
                 "needed without --check or --assemble")

    mach = kv_file(os.path.join(a.out, "machine.txt"))
    host = kv_file(os.path.join(a.out, "host.txt"))
    progs = mach["programs"].split()
    configs = mach["configs"].split()
    freqs = sorted({int(c.split("-")[1]) for c in configs if c != "none"})
    tools = [t for t in TOOLS if any(c.startswith(t + "-") for c in configs)]
    reps = int(mach["reps"])
    chk = Checker(a.root, a.unstripped)

    R = {}   # (prog, tool, hz) -> dict of figures
    for prog in progs:
        base = read_times(a.out, prog, "none")
        bw, bc = med([r[0] for r in base]), med([r[1] for r in base])
        R[(prog, "none", 0)] = dict(wall=bw, cpu=bc, n=len(base),
                                    csw=med([r[3] for r in base]))
        for hz in freqs:
            for tool in tools:
                cfg = "%s-%d" % (tool, hz)
                t = read_times(a.out, prog, cfg)
                sizes = read_sizes(a.out, prog, cfg)
                f = dict(wall=med([r[0] for r in t]), cpu=med([r[1] for r in t]),
                         n=len(t), failed=sum(1 for r in t if r[2]),
                         csw=med([r[3] for r in t]))
                f["wall_ovh"] = pct(f["wall"] - bw, bw)
                f["cpu_ovh"] = pct(f["cpu"] - bc, bc)
                f["bps"] = med([sizes[i + 1] / t[i][0] for i in range(len(t))
                                if i + 1 in sizes and t[i][0] > 0])
                if tool == "uwprof":
                    taken = delivered = lost = hsum = kctx = 0
                    hmax = 0
                    lookups = None
                    htimes, hframe = [], []
                    for rep in range(1, reps + 1):
                        p = os.path.join(a.out, "data", "%s.%s.rep%d.uwdata" % (prog, cfg, rep))
                        if not os.path.exists(p):
                            continue
                        d = load_uwdata(p)
                        st = d["stats"] or {}
                        taken += st.get("taken", 0)
                        delivered += st.get("delivered", 0)
                        lost += st.get("dropped", 0)
                        hsum += st.get("hsum", 0)
                        kctx += st.get("kctx", 0)
                        hmax = max(hmax, st.get("hmax", 0))
                        if st.get("lookups"):
                            lookups = {k: st["lookups"][k] + (lookups or {}).get(k, 0)
                                       for k in LOOKUP_FIELDS}
                        htimes += d["htimes"]
                        hframe += [h / len(smp[3]) for smp, h in
                                   zip(d["samples"], d["htimes"]) if h and smp[3]]
                        if rep == 1:
                            res, depth, where = check_uwprof(chk, d)
                            f["where"] = where
                            f["samples"] = len(d["samples"])
                            f["bytes_per_sample"] = d["size"] / max(1, len(d["samples"]))
                            f["rec_bytes_per_sample"] = st.get("bytes", 0) / max(1, st.get("delivered", 1))
                            f["res"], f["depth"] = res, depth
                            f["frames"] = statistics.mean(
                                len(x[3]) for x in d["samples"]) if d["samples"] else None
                    f.update(taken=taken, delivered=delivered, lost=lost,
                             lost_of=taken, kctx=kctx,
                             h_mean=hsum / taken if taken else float("nan"),
                             h_max=hmax,
                             h_p99=p99([h for h in htimes if h]),
                             hf_mean=statistics.mean(hframe) if hframe else float("nan"),
                             hf_p99=p99(hframe),
                             hf_max=max(hframe) if hframe else float("nan"),
                             per_run=taken / max(1, len(t)),
                             lookups=lookups)
                else:
                    p = os.path.join(a.out, "data", "%s.%s.script.gz" % (prog, cfg))
                    if os.path.exists(p):
                        res, depth, konly, frames = check_perf(chk, p, prog[:15])
                        f["res"], f["depth"], f["kernel_only"] = res, depth, konly
                        f["frames"] = statistics.mean(frames) if frames else None
                    ps = perf_stats(os.path.join(a.out, "data", "%s.%s.rep1.stats" % (prog, cfg)))
                    n = ps.get(("all", "SAMPLE"), 0)
                    f["samples"] = n
                    f["lost"] = ps.get(("cpu-clock stats", "LOST_SAMPLES"),
                                       ps.get(("all", "LOST_SAMPLES"), 0))
                    f["lost_records"] = ps.get(("all", "LOST"), 0)
                    f["lost_of"] = n + f["lost"]
                    f["bytes_per_sample"] = sizes.get(1, 0) / n if n else float("nan")
                    f["per_run"] = n
                R[(prog, tool, hz)] = f

    for prog in progs:
        for tool in tools:
            R[(prog, tool, "slope")] = marginal_cost(
                [R[(prog, tool, hz)] for hz in freqs])
            R[(prog, tool, "slope_hi")] = marginal_cost(
                [R[(prog, tool, hz)] for hz in freqs[-2:]])
    tables = parse_tables_log(a.tables_log)
    write_doc(a, mach, host, progs, freqs, tools, reps, R, tables)
    if a.summary:
        write_summary(a.summary, mach, progs, freqs, tools, R)
    if host.get("icount") == "1":
        print()
        print("\n".join(cost_lines(progs, freqs, tools, R)))
        print("\n".join(startup_lines(a.out, progs, tools)))


def marginal_cost(runs):
    """Least-squares slope of CPU time (ns) over samples per run, across
    the sampling rates: what one more sample costs, fixed costs left out.
    Under -icount shift=0 a guest nanosecond is one instruction."""
    pts = [(f["per_run"], f["cpu"] * 1e9) for f in runs
           if f.get("per_run") and f["cpu"] == f["cpu"]]
    if len(pts) < 2:
        return float("nan")
    mx = statistics.mean(x for x, _ in pts)
    my = statistics.mean(y for _, y in pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sxx if sxx else float("nan")


def cost_lines(progs, freqs, tools, R):
    """The cost section: guest instructions, from an -icount run."""
    L = ["## Cost in guest instructions", "",
         "The VM ran under `-icount shift=0,sleep=off` with one vCPU: guest "
         "time advances one nanosecond per guest instruction, so every time "
         "below is an instruction count (1 ms = 10^6 instructions), "
         "repeatable to about 0.1%, and the recorder's work lands in the "
         "command's CPU time. CPU: user + system time of the whole command "
         "tree (profiler and workload), median of the rounds. Marginal cost: "
         "the least-squares slope of CPU instructions over samples per run "
         "across the rates (first row), and between the two highest rates "
         "(second row: a profiler whose start-up varies from run to run, as "
         "perf's does here, spoils the first). Handler: each record's `handler_ns` (interrupt to "
         "record written), per sample and per frame. Wake-ups: voluntary "
         "context switches of the command tree per second of its wall time "
         "(the collector's sleeps; the workload's own are in the unprofiled "
         "row).", "",
         "| workload | tool | Hz | CPU (10^6 instr) | overhead | samples | "
         "marginal cost per sample | handler per sample mean / p99 / max | "
         "per frame mean / p99 / max | bytes per sample | wake-ups per s |",
         "|---|---|---:|---:|---:|---:|---:|---|---|---:|---:|"]
    for prog in progs:
        b = R[(prog, "none", 0)]
        L.append("| %s | unprofiled | - | %.1f | | | | | | | %.1f |" % (
            prog, b["cpu"] * 1e3, b["csw"] / b["wall"]))
        for tool in tools:
            slope = R[(prog, tool, "slope")]
            slope_hi = R[(prog, tool, "slope_hi")]
            for k, hz in enumerate(freqs):
                f = R[(prog, tool, hz)]
                hs = hf = "-"
                if tool == "uwprof":
                    hs = "%.0f / %.0f / %.0f" % (f["h_mean"], f["h_p99"], f["h_max"])
                    hf = "%.0f / %.0f / %.0f" % (f["hf_mean"], f["hf_p99"], f["hf_max"])
                L.append("| %s | %s | %d | %.1f | %+.2f%% | %.0f | %s | %s | %s | %.1f | %.1f |" % (
                    prog, TOOL_NAME[tool], hz, f["cpu"] * 1e3, f["cpu_ovh"],
                    f.get("per_run", float("nan")),
                    ("**%.0f**" % slope) if k == 0 else
                    ("%.0f (%d-%d Hz)" % (slope_hi, freqs[-2], freqs[-1])
                     if k == 1 and len(freqs) > 2 else ""), hs, hf,
                    f.get("bytes_per_sample", float("nan")),
                    f["csw"] / f["wall"] if f["wall"] else float("nan")))
    L.append("")
    return L + lookup_lines(progs, freqs, R)


def lookup_lines(progs, freqs, R):
    """The lookup caches' hit rates of uwprof's runs, from its counters."""
    rows = []
    for prog in progs:
        for hz in freqs:
            f = R.get((prog, "uwprof", hz))
            r = lookup_rates(f.get("lookups")) if f else None
            if r:
                rows.append("| %s | %d | %.2f%% | %.2f%% | %.1f%% |" % (
                    (prog, hz) + r))
    if not rows:
        return []
    return ["uwprof's lookup caches (the module's counters, `UWPROF_IOC_STATS`, "
            "all rounds): the share of sampled pcs found among the 512 "
            "cached pc ranges and 128 wide ones, of return addresses found among the 1024 "
            "cached ones, and of all return addresses, the frames the caller "
            "loop unwound (from the cache, or from an entry it filled).", "",
            "| workload | Hz | sampled pcs | return addresses | in the caller loop |",
            "|---|---:|---:|---:|---:|"] + rows + [""]


def startup_lines(out, progs, tools):
    """Start-up and finish: each profiler on a run that does nothing."""
    L = []
    for prog in progs:
        base = read_times(out, prog, "start-none")
        if not base:
            continue
        bw, bc = med([r[0] for r in base]), med([r[1] for r in base])
        if not L:
            L = ["## Start-up and finish", "",
                 "The profiler's fixed cost: `bench.lua 0` (lua starts, "
                 "loads the script and exits) profiled at 1 kHz against the "
                 "same run unprofiled, five runs each after one left out, "
                 "medians; the difference is what starting and finishing a "
                 "recording adds (a sample or two of the run included). "
                 "Guest wall time and CPU of the whole command tree, in "
                 "instructions as above.", "",
                 "| workload | tool | wall (ms) | added wall (ms) | "
                 "CPU (10^6 instr) | added CPU (10^6 instr) |",
                 "|---|---|---:|---:|---:|---:|"]
        L.append("| %s | unprofiled | %.2f | | %.2f | |" % (
            prog, bw * 1e3, bc * 1e3))
        for tool in tools:
            t = read_times(out, prog, "start-" + tool)
            if not t:
                continue
            w, c = med([r[0] for r in t]), med([r[1] for r in t])
            L.append("| %s | %s | %.2f | **%+.2f** | %.2f | **%+.2f** |" % (
                prog, TOOL_NAME[tool], w * 1e3, (w - bw) * 1e3, c * 1e3,
                (c - bc) * 1e3))
    return L + [""] if L else []


TOOLS = ("uwprof", "fp", "dwarf")
TOOL_NAME = {"uwprof": "uwprof", "fp": "perf fp", "dwarf": "perf dwarf"}


def where_rows(f):
    """(thread kind, stop, last frame, samples, share of the run's samples)
    of a uwprof run's samples that are not fully unwound, most first."""
    n = f.get("samples") or 0
    return [(k, stop, loc, c, pct(c, n))
            for (k, stop, loc), c in collections.Counter(f.get("where") or {}).most_common()]


def write_where(w, progs, freqs, R):
    w("Where the uwprof samples that are not fully unwound stopped (first round; "
      "the last frame of each, by thread kind and stop reason; file:function "
      "from the unstripped build's symbols or the library's dynamic symbols, "
      "else file+offset, an offset in the file, not a link address), most "
      "frequent first, at most 8 per run:")
    w("")
    w("| workload | Hz | thread | stop | last frame | samples | of the run's samples |")
    w("|---|---:|---|---|---|---:|---:|")
    for prog in progs:
        for hz in freqs:
            for k, stop, loc, c, share in where_rows(R[(prog, "uwprof", hz)])[:8]:
                w("| %s | %d | %s | %s | `%s` | %d | %.2f%% |"
                  % (prog, hz, k, stop, loc, c, share))
    w("")


ACCEPT_PCT = 99.5       # fully unwound, overall and on other threads
ACCEPT_ONE_PCT = 0.1    # the most one last frame may end early
ACCEPT_MIN_SAMPLES = 1000   # fewer cannot show 0.1%, nor that threads were sampled


def write_acceptance(w, progs, freqs, R):
    """uwprof against issue 10's bar, run by run."""
    w("## uwprof against the bar")
    w("")
    w("Each uwprof run (first round) against the bar of issue 10: at least "
      "%.1f%% of the samples fully unwound overall and on threads other than "
      "the main one, and no single last frame ending more than %.1f%% of the "
      "run's samples early. A run with fewer than %d samples is not judged: "
      "it cannot show a 0.1%% share, and in a multi-threaded program it "
      "means threads went unsampled." % (ACCEPT_PCT, ACCEPT_ONE_PCT,
                                           ACCEPT_MIN_SAMPLES))
    w("")
    w("| workload | Hz | overall | main thread | other threads | worst last frame | met |")
    w("|---|---:|---:|---:|---:|---|---|")
    for prog in progs:
        for hz in freqs:
            f = R[(prog, "uwprof", hz)]
            res = f.get("res")
            if res is None:
                w("| %s | %d | not measured | | | | |" % (prog, hz))
                continue
            n = sum(res.values())
            cells, good = [], n > 0 and pct(res.get("ok", 0), n) >= ACCEPT_PCT
            cells.append("%.2f%% of %d" % (pct(res.get("ok", 0), n), n))
            for k in ("main", "other"):
                c = res.kinds[k]
                t = sum(c.values())
                cells.append("%.2f%% of %d" % (pct(c["ok"], t), t) if t else "-")
                if k == "other" and t and pct(c["ok"], t) < ACCEPT_PCT:
                    good = False
            rows = where_rows(f)
            if rows:
                k, stop, loc, c, share = rows[0]
                cells.append("`%s` (%s, %s) %.2f%%" % (loc, k, stop, share))
                good = good and share <= ACCEPT_ONE_PCT
            else:
                cells.append("-")
            met = "yes" if good else "**no**"
            if n < ACCEPT_MIN_SAMPLES:
                met = "**no**: too few samples"
            w("| %s | %d | %s | %s |" % (prog, hz, " | ".join(cells), met))
    w("")


TEN_MB = 10 * 1000 * 1000


def upload_lines(out):
    """Tables uploaded by bench/big/upload.c in the VM (its upload.txt in
    @out): time and kernel memory per table, and the device's for one
    CPU.  [] when the run uploaded none."""
    path = os.path.join(out, "upload.txt")
    if not os.path.exists(path):
        return []
    rows, open_kb = {}, None
    for line in open(path):
        kv = dict(w.split("=", 1) for w in line.split()[1:])
        if line.startswith("open"):
            open_kb = int(kv["kb"])
            continue
        r = rows.setdefault(os.path.basename(kv["file"]).split(".")[0],
                            dict(parts=0, bytes=0, ns=0, kb=0, bad=0,
                                 pow2_kb=0))
        r["parts"] += 1
        r["bytes"] += int(kv["bytes"])
        r["ns"] += int(kv["ns"])
        r["kb"] += int(kv["kb"])
        r["pow2_kb"] += 1 << max(0, (int(kv["bytes"]) - 1).bit_length() - 10)
        r["bad"] += kv["verr"] != "0"
    if not rows:
        return []
    L = ["| table | parts | bytes | upload + validation (10^6 instr) | "
         "per byte | guest s per 10 MB | kernel memory kept (kB) | per part |",
         "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, r in rows.items():
        L.append("| %s | %d | %d | %.1f | %.1f | %.3f | %d | %.1f kB |%s" % (
            name, r["parts"], r["bytes"], r["ns"] / 1e6, r["ns"] / r["bytes"],
            r["ns"] / r["bytes"] * TEN_MB / 1e9, r["kb"], r["kb"] / r["parts"],
            " %d refused!" % r["bad"] if r["bad"] else ""))
    L += ["", "Opening the device (the session, and for the one CPU the "
          "lookup cache, the stack buffer, the frames and the ring) made "
          "MemFree fall by %d kB, less than the ring alone (512 KiB by "
          "default) that open allocates: MemFree does not see small "
          "allocations exactly (not resolved; docs/UNWIND-COST.md, Memory, "
          "has the sizes per CPU). The tables (%s) kept "
          "%s kB; their parts' sizes, each rounded up to a power of two "
          "as kvmalloc()'s kmalloc() takes them, add up to %s kB." % (
              open_kb if open_kb is not None else -1, ", ".join(rows),
              " and ".join("%d" % r["kb"] for r in rows.values()),
              " and ".join("%d" % r["pow2_kb"] for r in rows.values())), ""]
    return L


def upload_section(out):
    """make bench's section on what a Chrome-sized table costs to upload."""
    L = upload_lines(out)
    if not L:
        return []
    return ["## Chrome-sized tables", "",
            "Tables uploaded before the runs, in the same boot "
            "(bench/big/upload.c, one `UWPROF_IOC_TABLE_UPLOAD` a part: the "
            "copy in, validation, the search for the same table held already; "
            "guest instructions; kernel "
            "memory kept: how far /proc/meminfo's MemFree fell; issue 26's "
            "goal: 0.2 s of guest time per 10 MB): chromium's own table "
            "(make test-chromium's, when it is there) and libnode's, the "
            "`node` workload's. node's samples, handler times and lookup "
            "caches are in the tables above.", ""] + L


def write_summary(path, mach, progs, freqs, tools, R):
    """The headline figures of one kernel's run, as JSON, for --assemble."""
    figs = {}
    for prog in progs:
        for tool in tools:
            g = dict(slope=R[(prog, tool, "slope")],
                     slope_hi=R[(prog, tool, "slope_hi")], hz={})
            for hz in freqs:
                f = R[(prog, tool, hz)]
                res = f.get("res")
                n = sum(res.values()) if res is not None else 0
                g["hz"][str(hz)] = dict(
                    cpu_ovh=f["cpu_ovh"], samples=f.get("per_run"),
                    ok=pct(res.get("ok", 0), n) if n else None,
                    frames=f.get("frames"),
                    h_mean=f.get("h_mean"), h_p99=f.get("h_p99"),
                    h_max=f.get("h_max"), hf_mean=f.get("hf_mean"),
                    lookups=lookup_rates(f.get("lookups")) if f.get("lookups") else None)
            figs["%s %s" % (prog, tool)] = g
    with open(path, "w") as f:
        json.dump(dict(kernel=mach.get("kernel"), perf=mach.get("perf"),
                       progs=progs, freqs=freqs, tools=list(tools),
                       figures=figs), f, indent=1)


def num(x, fmt="%.0f"):
    return fmt % x if isinstance(x, (int, float)) and x == x else "-"


def kernels_lines(summaries):
    """Every kernel's headline figures side by side: @summaries, a list of
    (kernel name, write_summary's dict)."""
    L = ["## Kernels side by side", "",
         "The same workloads on each test kernel of the run, the armhf "
         "programs as native tasks on armmp-6.1 and as 32-bit (compat) "
         "tasks on arm64-6.1, each kernel in its own boot. The sections "
         "after this one are %s's; the other kernels' (%s) follow, each "
         "in its own section (\"Benchmarks on KERNEL\"). Marginal cost per "
         "sample: the least-squares slope of CPU instructions over samples "
         "across all rates / between the two highest. At the middle rate: "
         "the CPU overhead, uwprof's handler per sample (mean / p99 / max, "
         "instructions), the share of samples the checker found fully "
         "unwound and the mean of user frames a sample (first round, all "
         "samples of the workload's process)." % (
             summaries[0][0], ", ".join(k for k, _ in summaries[1:])), "",
         "perf is the guest root's armhf perf (Debian's linux-perf) on every "
         "kernel, a compat task on arm64-6.1. Its fp call graphs are the "
         "kernel's walk of frame records, on arm64 its compat walk, which "
         "reads the same APCS frame tail as armmp's (Thumb-2 code keeps "
         "none). Its dwarf call graphs are unwound by `perf script` from "
         "each sample's registers and 8 KB of stack." + leaf_note(summaries),
         ""]
    for kname, sm in summaries:
        freqs = sm["freqs"]
        mid = str(1000 if 1000 in freqs else freqs[len(freqs) // 2])
        L += ["%s (guest kernel %s, %s), %s Hz in the middle columns:" % (
            kname, sm["kernel"], sm["perf"], mid), "",
            "| workload | tool | marginal cost per sample | against perf fp | "
            "CPU overhead | handler mean / p99 / max | fully unwound | "
            "user frames a sample |",
            "|---|---|---:|---:|---:|---|---:|---:|"]
        for prog in sm["progs"]:
            fp = sm["figures"].get("%s fp" % prog)
            for tool in sm["tools"]:
                g = sm["figures"]["%s %s" % (prog, tool)]
                m = g["hz"][mid]
                ratio = "-"
                # between the two highest rates, where perf's start-up
                # spoils the slope least; none from a slope that is no cost
                if fp and tool != "fp" and fp["slope_hi"] > 0 and g["slope_hi"] > 0:
                    ratio = "%.2f×" % (g["slope_hi"] / fp["slope_hi"])
                h = "-"
                if tool == "uwprof":
                    h = " / ".join(num(m[k]) for k in ("h_mean", "h_p99", "h_max"))
                L.append("| %s | %s | %s / %s | %s | %s | %s | %s | %s |" % (
                    prog, TOOL_NAME[tool], num(g["slope"]), num(g["slope_hi"]),
                    ratio, num(m["cpu_ovh"], "%+.2f%%"), h,
                    num(m["ok"], "%.1f%%"), num(m.get("frames"), "%.1f")))
        L.append("")
    return L


def leaf_note(summaries):
    """What the page says when perf's dwarf call graphs hold the sampled
    pc alone on every kernel (a mean under 1.05 user frames a sample)."""
    means = [m["frames"] for _, sm in summaries
             for key, g in sm["figures"].items() if key.endswith(" dwarf")
             for m in g["hz"].values() if m.get("frames")]
    if not means or max(means) >= 1.05:
        return ""
    return (" On every kernel here it gave the sampled pc and nothing more "
            "(at most %.2f user frames a sample): a limit of this perf's "
            "unwinding of these programs, the same on the native and the "
            "compat path; perf dwarf's cost, the copy of the stack, is "
            "measured all the same." % max(means))


def demote(lines, kname):
    """A kernel's page as a part of the main one: its title named after
    the kernel, every heading one level down."""
    out = []
    for line in lines:
        if line == "# Benchmarks":
            line = "# Benchmarks on %s" % kname
        if line.startswith("#"):
            line = "#" + line
        out.append(line)
    return out


def assemble(a):
    """--assemble: --doc from the first --page (its kernel's run), the
    side-by-side section from every --kernel-summary after its opening
    paragraphs, every other kernel's page in its own marked section
    '<!-- make bench-KERNEL: ... -->', and the marked sections the old
    --doc had that this run does not write, as they were."""
    pages = [p.split("=", 1) for p in a.page]
    if not pages or not a.doc:
        sys.exit("analyze.py --assemble: --doc and at least one --page needed")
    sums = []
    for ks in a.kernel_summary:
        k, path = ks.split("=", 1)
        sums.append((k, json.load(open(path))))
    main = open(pages[0][1]).read().rstrip("\n").split("\n")
    # the main page's own body: up to its first section of another target
    cut = next((i for i, l in enumerate(main)
                if re.match(r"<!-- make \S+: begin -->$", l)), len(main))
    main = main[:cut]
    at = next((i for i, l in enumerate(main) if l == "## Machine"), len(main))
    L = main[:at] + (kernels_lines(sums) if len(sums) > 1 else []) + main[at:]
    written = set()
    for k, path in pages[1:]:
        tag = "bench-" + k
        written.add(tag)
        body = open(path).read().rstrip("\n").split("\n")
        body = body[:next((i for i, l in enumerate(body)
                           if re.match(r"<!-- make \S+: begin -->$", l)), len(body))]
        L += ["<!-- make %s: begin -->" % tag, ""] + demote(body, k) + \
             ["", "<!-- make %s: end -->" % tag, ""]
    for block in marked_sections(a.doc):
        tag = re.match(r"<!-- make (\S+): begin -->$", block[0]).group(1)
        if tag not in written:
            L.extend(block + [""])
    os.makedirs(os.path.dirname(os.path.abspath(a.doc)), exist_ok=True)
    with open(a.doc + ".new", "w") as f:
        f.write("\n".join(L) + "\n")
    os.replace(a.doc + ".new", a.doc)
    print("analyze.py: wrote %s (%s)" % (a.doc, ", ".join(k for k, _ in pages)))
    return 0


def check_one(a):
    """--check: one uwprof data file, judged by thread kind, as lines
    'KIND SAMPLES FULLY-UNWOUND' (KIND all, main, other) and then
    'where KIND STOP LAST-FRAME SAMPLES' for those that are not, and
    'why KIND SAMPLES REASON' (the module's stop reason, or what the
    checker found wrong with a complete-looking walk)."""
    window = tuple(float(x) for x in a.window.split(",")) if a.window else None
    chk = Checker(a.root, a.unstripped)
    res, _depth, where = check_uwprof(chk, load_uwdata(a.check), a.exe, window)
    print("# where KIND STOP LAST-FRAME SAMPLES: LAST-FRAME is file:function, "
          "else file+0xOFFSET, a file offset (not a link address; Thumb bit "
          "as sampled)")
    print("all %d %d" % (sum(res.values()), res.get("ok", 0)))
    for k in ("main", "other"):
        print("%s %d %d" % (k, sum(res.kinds[k].values()), res.kinds[k]["ok"]))
    for (k, stop, loc), c in where.most_common():
        print("where %s %s %s %d" % (k, stop, loc, c))
    for (k, reason), c in res.why.most_common():
        print("why %s %d %s" % (k, c, reason))
    print("jit %d %d" % (chk.jit_checked, chk.jit_ok))
    return 0


def marked_sections(path):
    """The blocks of @path from a line '<!-- make T: begin -->' to its
    '<!-- make T: end -->', both included, in order."""
    blocks, cur, end = [], None, None
    if not os.path.exists(path):
        return blocks
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if cur is None:
            m = re.match(r"<!-- make (\S+): begin -->$", line)
            if m:
                cur, end = [line], "<!-- make %s: end -->" % m.group(1)
            continue
        cur.append(line)
        if line == end:
            blocks.append(cur)
            cur = None
    return blocks


def write_doc(a, mach, host, progs, freqs, tools, reps, R, tables):
    L = []
    w = L.append
    w("# Benchmarks")
    w("")
    w("Written by `%s` (bench/perf/bench.sh) on the tree of commit %s; "
      "every figure below was measured by the run that wrote this page. "
      "Rerun it to regenerate the page." % (a.command, host.get("commit", "unknown")))
    w("")
    names = {"uwprof": "uwprof", "fp": "`perf record --call-graph=fp`",
             "dwarf": "`perf record --call-graph=dwarf`"}
    if len(tools) > 1:
        w("%s and %s sample the same workloads at the same frequencies in the "
          "same emulated ARM machine, one after the other."
          % (", ".join(names[t] for t in tools[:-1]), names[tools[-1]]))
    else:
        w("%s alone samples the workloads (no other profiler ran: "
          "`BENCH_PROFILERS`), in the emulated ARM machine." % names[tools[0]])
    w("")
    w("## Machine")
    w("")
    w("| | |")
    w("|---|---|")
    w("| host | %s, %s cores, Linux %s; load average at the end of the run %s |"
      % (host.get("host_cpu", "?"), host.get("host_cpus", "?"),
         host.get("host_kernel", "?"), host.get("host_loadavg", "?")))
    w("| emulator | %s, `-M virt -cpu cortex-a15 -smp %s -m 2048%s` (TCG: no KVM) |"
      % (host.get("qemu", "?"), host.get("smp", "2"),
         " -icount shift=0,sleep=off" if host.get("icount") == "1" else ""))
    w("| guest | %s CPUs (%s), %s MiB, Debian kernel %s %s |"
      % (mach.get("cpus"), mach.get("cpu"), int(mach.get("mem_kb", "0")) // 1024,
         mach.get("kernel"), mach.get("kernel_version")))
    w("| guest root | Debian bookworm armhf (debootstrap minbase) with linux-perf %s, libc6 %s, binutils %s |"
      % (dpkg_version(a.root, "linux-perf"), dpkg_version(a.root, "libc6"),
         dpkg_version(a.root, "binutils")))
    w("| perf | %s; `perf_event_max_sample_rate` %s at the start, %s at the end |"
      % (mach.get("perf"),
         mach.get("perf_max_sample_rate"),
         open(os.path.join(a.out, "perf_max_sample_rate_after.txt")).read().strip()
         if os.path.exists(os.path.join(a.out, "perf_max_sample_rate_after.txt")) else "?"))
    w("| compilers | %s; %s |" % (host.get("gcc", "?"), host.get("clang", "?")))
    w("| duration | the VM: %s s; bench/perf/bench.sh from start to the checker: %s s |"
      % (host.get("vm_seconds", "?"), a.total_seconds or "?"))
    w("")
    if host.get("icount") == "1":
        w("The guest counts instructions (`-icount shift=0,sleep=off`): every "
          "guest time on this page, wall, CPU or handler, is an instruction "
          "count (1 s = 10^9 instructions), independent of the host's load.")
    else:
        w("The guest is emulated instruction by instruction on a host shared with "
          "other work, so absolute times are those of a slow machine and vary from "
          "run to run; ratios between configurations measured in the same rounds "
          "are what the tables compare. Handler times are guest clock times.")
    w("")
    w("## Workloads and commands")
    w("")
    ran = set(p.rsplit("-", 1)[0] for p in progs)
    if ran & {"lua", "sqlite"}:
        w("- `lua-gcc`, `lua-clang`: lua 5.4 from Debian's source package running "
          "`bench/perf/bench.lua` (recursion, string formatting and patterns, table "
          "sort, closures). `sqlite-gcc`, `sqlite-clang`: the sqlite3 shell from "
          "Debian's source package running `bench/perf/bench.sql` on an in-memory "
          "database (inserts, an index, aggregates, a join, sorting, JSON). Built by "
          "`scripts/build-lua.sh` and `scripts/build-sqlite.sh`: `-O2 -g -mthumb "
          "-funwind-tables`, dynamically linked against Debian's libc6:armhf. Both "
          "workloads are single-threaded.")
    if "node" in ran:
        w("- `node`, the Chrome-sized workload: Debian bookworm's armhf node "
          "(nodejs, libnode108: libnode.so.108, 25 MB of code, and V8's JIT) "
          "as shipped, running `bench/big/work.js` (%s rounds: JavaScript a "
          "few frames deep calling into libnode's C++ for JSON, crypto, "
          "typed-array sorting and string search; main thread only), with "
          "Debian's libraries, with `--perf-basic-prof --perf-prof` in "
          "every configuration alike (V8's perf map and jitdump: uwprof "
          "record copies the jitdump into its data file and the checker "
          "judges JIT frames by its code). uwprof records it with "
          "`--jit v8-arm` (JIT frames walked by V8's frame chain) and its "
          "own tables directory (record uploads every table of the "
          "directory it is given as it starts); the tables are made from "
          "the files as shipped (`--prologue-analysis`, no debug file)."
          % mach.get("node_rounds", "12"))
    if ran - {"lua", "sqlite", "node"}:
        w("- The corpus (`scripts/build-corpus.sh`), each from Debian bookworm's "
          "source package, `-O2 -g -mthumb -funwind-tables`, built with gcc and "
          "with clang over GNU ld and lld, static and dynamic (the script's table "
          "says which build is which): `zstd-*` (`-T4 -9`), `xz-*` (`-T4 "
          "--block-size=512KiB -3`) and `pbzip2-*` (C++, `-p4 -9`) compress with "
          "four threads; `bzip2-*` (`-9`), `lz4-*` (`-9`) "
          "and `brotli-*` (`-q 6`) are single-threaded. Each compresses the same "
          "4 MiB of generated text (`bench/perf/corpus-input.py`) to standard "
          "output. `leveldb-*` (C++ built with exceptions on, dynamically linked "
          "against Debian's libstdc++6) is leveldb's `db_bench`: four `std::thread` "
          "threads fill, read and seek a fresh database in `/tmp` while "
          "leveldb's background thread compacts it. The command lines are in "
          "`bench/perf/workloads.sh`.")
    w("- On the target the binaries are stripped (`arm-linux-gnueabihf-strip`). "
      "Their unstripped copies are installed where debug packages put them, "
      "`/usr/lib/debug/.build-id/xx/yyyy.debug`, for perf.")
    w("- uwprof tables: `uwprof table FILE --build-id-dir tables "
      "--prologue-analysis` on the unstripped builds, and on Debian's "
      "libc.so.6, libgcc_s.so.1, ld-linux-armhf.so.3, libm.so.6 and "
      "libstdc++.so.6 as shipped "
      "with `--debug-dir` pointing at Debian's libc6-dbg debug files (whose "
      "`.debug_frame` the libraries' own `.ARM.exidx` lacks; libstdc++.so.6 "
      "has no debug file to be had, its own `.ARM.exidx` covers it). perf's "
      "root has the same debug files under `/usr/lib/debug`.")
    w("- unprofiled: `timeit -o T -- WORKLOAD`")
    w("- uwprof: `timeit -o T -- uwprof record -F HZ --tables tables -o uwprof.data -- WORKLOAD` "
      "(the static armhf `uwprof`, module `uwprof.ko` loaded)")
    perfs = [t for t in tools if t != "uwprof"]
    if perfs:
        w("- perf: `timeit -o T -- perf record -q -e cpu-clock -F HZ --call-graph=%s "
          "-o perf.data -- WORKLOAD` (cpu-clock, as uwprof's sampler uses; the "
          "virt machine has no PMU), then `perf report --stats` and "
          "`perf script --no-inline --show-mmap-events -F comm,pid,tid,time,event,ip,dso`"
              % "|".join(perfs))
    w("- `timeit` (bench/timeit.c) reports the wall time and the CPU time "
      "(user + system) of the command and everything it waited for: for a "
      "profiled run, profiler and workload together.")
    w("- %d rounds; in each, every configuration of a workload runs once, in an "
      "order rotated from round to round. Times are medians over the rounds. "
      "The success rate, bytes per sample and perf's counts are from the first "
      "round; uwprof's lost samples and handler times add up all rounds."
      % reps)
    w("")

    if host.get("icount") == "1":
        L.extend(cost_lines(progs, freqs, tools, R))
        L.extend(startup_lines(a.out, progs, tools))
    L.extend(upload_section(a.out))

    w("## Success rate")
    w("")
    w("Fully unwound samples / samples of the workload, checked frame by frame "
      "by `bench/perf/analyze.py`: every return address must lie in an "
      "executable file mapping with a call instruction (capstone: Thumb BL/BLX "
      "immediate or BLX register, ARM BL/BLX) just before it, and the last "
      "frame must be in the entry function of the executable (`_start`) or of "
      "the dynamic loader. For uwprof, samples that fail are named by the "
      "module's stop reason; for perf, by the first check that fails. perf "
      "samples whose call chain has kernel frames only (during exec, before "
      "the process has user context) are left out and counted apart.")
    w("")
    w("| workload | Hz | tool | samples | fully unwound | main thread | other threads | mean depth (fully unwound) | the rest, by reason |")
    w("|---|---:|---|---:|---:|---:|---:|---:|---|")
    for prog in progs:
        for hz in freqs:
            for tool in tools:
                f = R[(prog, tool, hz)]
                res = f.get("res")
                if res is None:
                    w("| %s | %d | %s | - | not measured | | |" % (prog, hz, TOOL_NAME[tool]))
                    continue
                n = sum(res.values())
                ok = res.get("ok", 0)
                rest = ", ".join("%s %d (%.1f%%)" % (k, v, pct(v, n))
                                 for k, v in res.most_common() if k != "ok")
                if f.get("kernel_only"):
                    rest += "%s(+%d kernel-only samples left out)" % ("; " if rest else "", f["kernel_only"])
                dep = "%.1f" % statistics.mean(f["depth"]) if f["depth"] else "-"
                kinds = getattr(res, "kinds", None)
                by_kind = []
                for k in ("main", "other"):
                    c = kinds[k] if kinds else None
                    t = sum(c.values()) if c else 0
                    by_kind.append("%.1f%% of %d" % (pct(c["ok"], t), t) if t else "-")
                w("| %s | %d | %s | %d | **%.1f%%** | %s | %s | %s | %s |"
                  % (prog, hz, TOOL_NAME[tool], n, pct(ok, n), by_kind[0],
                     by_kind[1], dep, rest or "-"))
    w("")

    if "uwprof" in tools:
        write_where(w, progs, freqs, R)

    if "uwprof" in tools:
        write_acceptance(w, progs, freqs, R)

    w("## Overhead")
    w("")
    w("Median wall and CPU time of the profiled command (profiler and workload "
      "together) against the unprofiled workload, same rounds.")
    w("")
    w("| workload | unprofiled wall / CPU | Hz | %s |"
      % " | ".join("%s wall / CPU" % TOOL_NAME[t] for t in tools))
    w("|---|---|---:|%s" % ("---|" * len(tools)))
    for prog in progs:
        b = R[(prog, "none", 0)]
        for k, hz in enumerate(freqs):
            cells = []
            for tool in tools:
                f = R[(prog, tool, hz)]
                c = "%.2f s (%+.0f%%) / %.2f s (%+.0f%%)" % (
                    f["wall"], f["wall_ovh"], f["cpu"], f["cpu_ovh"])
                if f.get("failed"):
                    c += "; %d runs failed" % f["failed"]
                cells.append(c)
            w("| %s | %s | %d | %s |" % (
                prog if k == 0 else "",
                ("%.2f s / %.2f s (n=%d)" % (b["wall"], b["cpu"], b["n"])) if k == 0 else "",
                hz, " | ".join(cells)))
    w("")

    w("## Data written and lost samples")
    w("")
    w("Bytes per sample: the data file of the first round over its samples "
      "(uwprof.data with its mapping and stats records; perf.data with its "
      "headers). Bytes per second: data file size over the wall time of its "
      "run, median of the rounds. Lost: uwprof, samples the module dropped "
      "(buffer full) out of those it took, all rounds; perf, the lost-sample "
      "count and LOST records of `perf report --stats`, first round.")
    w("")
    w("| workload | Hz | %s |" % " | ".join(
        "%s B/sample | %s B/s | %s lost" % ((TOOL_NAME[t],) * 3) for t in tools))
    w("|---|---:|%s" % ("---:|---:|---|" * len(tools)))
    for prog in progs:
        for hz in freqs:
            cells = []
            for tool in tools:
                f = R[(prog, tool, hz)]
                if tool == "uwprof":
                    lost = "%d of %d" % (f["lost"], f["lost_of"])
                else:
                    lost = "%d of %d (%d LOST records)" % (f["lost"], f["lost_of"], f["lost_records"])
                cells.append("%.0f | %s/s | %s" % (f.get("bytes_per_sample", float("nan")),
                                                  fmt_bytes(f["bps"]) if f["bps"] == f["bps"] else "-", lost))
            w("| %s | %d | %s |" % (prog, hz, " | ".join(cells)))
    w("")
    if "uwprof" in tools:
        write_handler(w, progs, freqs, R)
    write_tables(w, tables)
    # Sections other targets write into the same page between their
    # marker lines (scripts/doc-section.sh: make bench-stock's in
    # docs/BENCHMARKS-corpus.md) are kept, at the end, as they were.
    for block in marked_sections(a.doc):
        L.extend(block + [""])
    os.makedirs(os.path.dirname(os.path.abspath(a.doc)), exist_ok=True)
    with open(a.doc, "w") as f:
        f.write("\n".join(L) + "\n")
    print("\n".join(L))


def write_handler(w, progs, freqs, R):
    """uwprof's bytes per record and handler time per sample."""
    w("uwprof's records alone (the module's `bytes` / `delivered`, first round): " +
      ", ".join("%s %d Hz %.1f B" % (p, hz, R[(p, "uwprof", hz)].get("rec_bytes_per_sample", float("nan")))
                for p in progs for hz in freqs) + ".")
    w("")

    w("## uwprof handler time per sample")
    w("")
    w("Mean and max from the module's counters (`UWPROF_IOC_STATS`: "
      "`handler_ns_sum`, `handler_ns_max`, `taken`); p99 from each delivered "
      "record's own `handler_ns` (the time up to writing the record); all "
      "rounds.")
    w("")
    w("| workload | Hz | samples taken | in the kernel when taken | mean | p99 | max |")
    w("|---|---:|---:|---:|---:|---:|---:|")
    for prog in progs:
        for hz in freqs:
            f = R[(prog, "uwprof", hz)]
            w("| %s | %d | %d | %d | %.1f µs | %.1f µs | %.1f µs |" % (
                prog, hz, f["taken"], f["kctx"], f["h_mean"] / 1e3,
                f["h_p99"] / 1e3, f["h_max"] / 1e3))
    w("")


def write_tables(w, tables):
    """Table sizes, from uwprof table --stats of every file tabled."""
    w("## Table sizes")
    w("")
    w("`uwprof table --stats` on each file: the v2 table against the unwind "
      "sections of the same ELF. Per function: the table over the functions it "
      "holds; `.ARM.exidx` + `.ARM.extab` over their entries (one per function "
      "or range); `.debug_frame` over the table's functions.")
    w("")
    w("| file | functions in table | .text covered | table bytes | per function | .ARM.exidx + .ARM.extab | per entry | .debug_frame | per function |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, t in tables.items():
        if t.get("none") or "bytes" not in t:
            w("| %s | no unwind information: no table | | | | | | | |" % name)
            continue
        cov = t.get("covered", (0, 0))
        ex, ne, df, nf = t.get("exidx", 0), t.get("exidx_entries", 0), t.get("debug_frame", 0), t.get("funcs", 0)
        w("| %s | %d | %.1f%% | %d | %.2f | %d | %s | %d | %s |" % (
            name, nf, pct(cov[0], cov[1]), t["bytes"], t.get("per_func", float("nan")),
            ex, "%.2f" % (ex / ne) if ne else "-", df, "%.2f" % (df / nf) if df and nf else "-"))
    w("")


if __name__ == "__main__":
    sys.exit(main())
