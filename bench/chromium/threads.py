#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""threads.py DATA --exe PATH --root DIR: the call-site checker's verdict
(bench/perf/analyze.py) on each sample of a uwprof data file, counted by
thread name, for a program whose threads are named by what they do
(chromium: CrBrowserMain, Chrome_IOThread, ThreadPoolForeg, ...).

Prints 'thread NAME SAMPLES FULLY-UNWOUND' for each name, most samples
first, then 'stop NAME STOP SAMPLES' for the samples of that name that
are not fully unwound, by the module's stop reason.  A name is a thread's
last comm record in the file ('?' if it has none)."""
import argparse
import collections
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "perf"))
import analyze  # noqa: E402


def thread_names(path):
    """tid -> the thread's last name in the data file (its comm records)."""
    b = open(path, "rb").read()
    pos = struct.unpack_from("<I", b, 12)[0]
    names = {}
    while pos + 8 <= len(b):
        typ, size = struct.unpack_from("<II", b, pos)
        if size < 8 or pos + size > len(b):
            break
        if typ == 6:        # comm: pid, tid, flags, pad, time, name
            tid = struct.unpack_from("<I", b, pos + 12)[0]
            names[tid] = b[pos + 32:pos + size].split(b"\0")[0].decode(errors="replace")
        pos += size
    return names


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("--exe", required=True)
    ap.add_argument("--root", required=True)
    a = ap.parse_args()
    d = analyze.load_uwdata(a.data)
    names = thread_names(a.data)
    chk = analyze.Checker(a.root, a.root)
    n, full = collections.Counter(), collections.Counter()
    stops = collections.Counter()
    for s in d["samples"]:
        if d["procs"].image(s[0], s[5])["exe"] != a.exe:
            continue
        jit = d["jit"].get(s[0], ())
        fr = analyze.uw_frames(s, d["procs"], jit)
        why = chk.check(fr, True, s[1] == analyze.STOP_NORETURN, jit) if fr else "no frames"
        name = names.get(s[4], "?")
        n[name] += 1
        if why is None and analyze.complete_stop(s[1]):
            full[name] += 1
            continue
        stop = analyze.STOP_NAMES[s[1]] if s[1] < len(analyze.STOP_NAMES) else str(s[1])
        if why is not None and analyze.complete_stop(s[1]):
            stop = "checker"
        stops[(name, stop)] += 1
    for name, c in n.most_common():
        print("thread %s %d %d" % (name.replace(" ", "_"), c, full[name]))
    for (name, stop), c in stops.most_common():
        print("stop %s %s %d" % (name.replace(" ", "_"), stop, c))
    return 0


if __name__ == "__main__":
    sys.exit(main())
