#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""attribute.py NONE_DIR PROFILED_DIR RECORDER [RUNS]: the guest
instructions of make bench-profile's two boots by function (each boot's
blocks.txt from the tbcount plugin: "ADDRESS INSNS EXECUTIONS"), the
profiled boot's less the unprofiled one's, per sample of the profiled
run (its record.txt). Kernel addresses are named by each boot's
kallsyms.txt, the recorder's (below 1 MiB) by the symbols of RECORDER,
the static uwprof the guest ran. The boots differ by the recording
alone, so the difference is its cost: the sample path, the collector,
and start-up and finish spread over the samples. With RUNS > 0 (make
bench-profile's start-up mode) the boots differ by RUNS start-ups and
finishes: per run instead."""
import bisect
import collections
import re
import subprocess
import sys

KERNEL_START = 0x80000000


def kernel_symbols(path):
    syms = []
    for line in open(path):
        p = line.split()
        # ARM mapping symbols ($a, $d, $t) mark code and literal pools
        # inside functions: not names
        if (len(p) >= 3 and p[1] in "tTwW" and int(p[0], 16)
                and not p[2].startswith("$")):
            name = p[2] + (" " + p[3] if len(p) > 3 else "")
            syms.append((int(p[0], 16), name))
    return sorted(syms)


def recorder_symbols(path):
    out = subprocess.run(["arm-linux-gnueabihf-nm", path], check=True,
                         capture_output=True, text=True).stdout
    syms = [(int(p[0], 16), "uwprof record: " + p[2])
            for p in (line.split() for line in out.splitlines())
            if len(p) == 3 and p[1] in "tTwW"]
    return sorted(syms)


def by_function(d, recorder):
    ksyms, usyms = kernel_symbols(d + "/kallsyms.txt"), recorder
    kaddr, uaddr = [a for a, _ in ksyms], [a for a, _ in usyms]
    total = collections.Counter()
    for line in open(d + "/blocks.txt"):
        addr, insns, runs = line.split()
        addr = int(addr, 16)
        syms, addrs = (ksyms, kaddr) if addr >= KERNEL_START else (usyms, uaddr)
        i = bisect.bisect_right(addrs, addr) - 1
        total[syms[i][1] if i >= 0 else "?"] += int(insns) * int(runs)
    return total


def samples(prof_dir, tool):
    """The profiled run's sample count, from its record.txt."""
    rec = open(prof_dir + "/record.txt").read()
    m = re.search(r"(\d+) samples", rec)
    if not m or not int(m.group(1)):
        sys.exit("%s: no samples in %s/record.txt" % (tool, prof_dir))
    return int(m.group(1))


def main():
    none_dir, prof_dir, recorder = sys.argv[1:4]
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    n = runs or samples(prof_dir, "attribute.py")
    unit = "run (start-up and finish)" if runs else "sample"
    usyms = recorder_symbols(recorder)
    a, b = by_function(none_dir, usyms), by_function(prof_dir, usyms)
    diff = {k: b.get(k, 0) - a.get(k, 0) for k in set(a) | set(b)}

    def part(pred):
        return sum(v for k, v in diff.items() if pred(k)) / n

    print("bench-profile: %d %ss; guest instructions per %s, the "
          "recording's boot less the unprofiled one's"
          % (n, "run" if runs else "sample", unit))
    print("  all counted: %.0f" % part(lambda k: True))
    print("  the module (start-up's table checks included): %.0f"
          % part(lambda k: k.endswith("[uwprof]")))
    print("  the recorder's own code: %.0f"
          % part(lambda k: k.startswith("uwprof record: ")))
    print("  the rest of the kernel: %.0f"
          % part(lambda k: not k.endswith("[uwprof]") and
                 not k.startswith("uwprof record: ")))
    print("largest differences, per %s:" % unit)
    for k, v in sorted(diff.items(), key=lambda kv: -abs(kv[1]))[:40]:
        print("  %8.1f  %s" % (v / n, k))


if __name__ == "__main__":
    main()
