#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""figures.py OUT FREQS COMMIT: make bench-big's page section, from what
bench/big/bench-big.sh's VM left in OUT: upload.txt (bench/big/upload.c),
the timeit lines in OUT/t and the uwprof data files.  Every time is guest
nanoseconds under -icount shift=0, so an instruction count."""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "perf"))
from analyze import (STOP_NAMES, load_uwdata, lookup_rates, p99,  # noqa: E402
                     upload_lines)


def timeit_cpu(path):
    """CPU (user + system of the command tree), in instructions."""
    d = dict(kv.split("=") for kv in open(path).read().split())
    return (int(d["user_us"]) + int(d["sys_us"])) * 1000


def run_figures(data):
    d = load_uwdata(data)
    st = d["stats"]
    h = [x for x in d["htimes"] if x]
    per_frame = [x / len(s[3]) for s, x in zip(d["samples"], d["htimes"])
                 if x and s[3]]
    stops = sorted(((n, STOP_NAMES[i] if i < len(STOP_NAMES) else str(i))
                    for i, n in enumerate(st["stop"]) if n), reverse=True)
    return dict(taken=st["taken"], lost=st["dropped"],
                h_mean=st["hsum"] / st["taken"], h_p99=p99(h),
                h_max=st["hmax"], depth=st["frames"] / st["delivered"],
                hf_mean=statistics.mean(per_frame), hf_p99=p99(per_frame),
                stops=stops, lookups=lookup_rates(st["lookups"]))


def slope(pts):
    mx = statistics.mean(x for x, _ in pts)
    my = statistics.mean(y for _, y in pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sxx


def node_lines(out, freqs):
    base = timeit_cpu(os.path.join(out, "t", "node.none"))
    lua = run_figures(os.path.join(out, "lua.1000.data"))
    R, pts = {}, []
    for hz in freqs:
        f = run_figures(os.path.join(out, "node.%d.data" % hz))
        f["cpu"] = timeit_cpu(os.path.join(out, "t", "node.%d" % hz))
        R[hz] = f
        pts.append((f["taken"], f["cpu"]))
    L = ["| run | Hz | CPU (10^6 instr) | overhead | samples | lost | "
         "frames a sample | handler a sample, mean / p99 / max | "
         "a frame, mean / p99 | stops |",
         "|---|---:|---:|---:|---:|---:|---:|---|---|---|",
         "| node unprofiled | - | %.1f | | | | | | | |" % (base / 1e6)]
    for hz in freqs:
        f = R[hz]
        L.append("| node, uwprof | %d | %.1f | %+.2f%% | %d | %d | %.1f | "
                 "%.0f / %.0f / %.0f | %.0f / %.0f | %s |" % (
                     hz, f["cpu"] / 1e6, 100.0 * (f["cpu"] - base) / base,
                     f["taken"], f["lost"], f["depth"], f["h_mean"],
                     f["h_p99"], f["h_max"], f["hf_mean"], f["hf_p99"],
                     ", ".join("%s %d" % (n, c) for c, n in f["stops"])))
    L.append("| lua-gcc, uwprof | 1000 | | | %d | %d | %.1f | "
             "%.0f / %.0f / %.0f | %.0f / %.0f | %s |" % (
                 lua["taken"], lua["lost"], lua["depth"], lua["h_mean"],
                 lua["h_p99"], lua["h_max"], lua["hf_mean"], lua["hf_p99"],
                 ", ".join("%s %d" % (n, c) for c, n in lua["stops"])))
    mid = R[1000] if 1000 in R else R[freqs[len(freqs) // 2]]
    L += ["", "Marginal cost per sample (least-squares slope of CPU over "
          "samples, %s Hz): %.0f instructions. Handler per frame against "
          "lua's at 1 kHz: %.0f / %.0f = %.2f times (issue 26's goal: 1.5)." % (
              ", ".join(str(x) for x in freqs), slope(pts),
              mid["hf_mean"], lua["hf_mean"], mid["hf_mean"] / lua["hf_mean"]),
          ""]
    return L + lookup_lines([("node", hz, R[hz]) for hz in freqs] +
                            [("lua-gcc", 1000, lua)])


def lookup_lines(runs):
    """The lookup caches' hit rates, from the module's counters."""
    rows = ["| %s | %d | %.2f%% | %.2f%% | %.1f%% |" % ((name, hz) + f["lookups"])
            for name, hz, f in runs if f["lookups"]]
    if not rows:
        return ["The module's lookup counters: not in these data files "
                "(a module older than them).", ""]
    return ["The handler's lookup caches (the module's counters, "
            "`UWPROF_IOC_STATS`): the share of sampled pcs found among the "
            "512 cached pc ranges and 128 wide ones, of return addresses found among the 1024 "
            "cached ones (code they cannot serve, JIT code walked by its frame "
            "chain, counts as a miss), and "
            "of all return addresses, the frames the caller loop unwound "
            "(from the cache, or from an entry it filled).", "",
            "| run | Hz | sampled pcs | return addresses | in the caller loop |",
            "|---|---:|---:|---:|---:|"] + rows + [""]


def main():
    out, freqs, commit = sys.argv[1], [int(x) for x in sys.argv[2].split()], \
        sys.argv[3]
    L = ["## Chrome-sized code", "",
         "What a sample and a table cost on code of Chrome's size: "
         "Debian's armhf node (libnode.so.108, 25 MB of code and V8's JIT), "
         "and chromium's own table (make test-chromium's, 8 MB in 91 "
         "parts). bench/big/bench-big.sh says what runs.", "",
         "Measured by `make bench-big` at commit %s: one boot of the VM "
         "under `-icount shift=0,sleep=off` with one vCPU, so 10^6 guest "
         "instructions are a millisecond of guest time; one run each." % commit,
         "", "Tables uploaded (bench/big/upload.c, one ioctl a part: the "
         "copy in, validation, the search for the same table held "
         "already; kernel memory kept: how far "
         "/proc/meminfo's MemFree fell; issue 26's goal: 0.2 s of guest "
         "time per 10 MB):", ""]
    L += upload_lines(out)
    L += ["node (bench/big/work.js) under `uwprof record --jit v8-arm`, "
          "tables for every file node maps; lua-gcc (`bench.lua 2`) in the "
          "same boot. Handler: the records' `handler_ns`; per frame: each "
          "record's over its frames.", ""]
    L += node_lines(out, freqs)
    print("\n".join(L))


main()
