#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/kernel-problems.sh, the check every VM run ends with: a kernel
# problem anywhere in the console log is found, even inside a file the
# guest passes out; the base64 of such a file is not read, whatever it
# happens to spell.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
check=$here/../../scripts/kernel-problems.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# $1: what the case is, $2: 0 if a problem must be found, 1 if not; the
# log on stdin.
case_log() {
	cat >"$tmp/console"
	"$check" "$tmp/console" >"$tmp/out"
	if [ $? -eq "$2" ]; then ok "$1"; else fail "$1: $(cat "$tmp/out")"; fi
}

case_log "a clean log" 1 <<'L'
[    0.5] pci-host-generic: address conflict
UWPROF-EXIT 0
L
case_log "base64 spelling Oops and BUG inside a file is not a problem" 1 <<'L'
UWPROF-FILE-BEGIN samples.data
bEIAAQAAAEgAAABAAAEAAAABAF4AAABeAAAAIOopswQAAAAIAAAAsDcAAHNh6LaDYei2l2Hotq9h
QUJVR2Zvbw==
UWPROF-FILE-END
UWPROF-EXIT 0
L
case_log "an Oops printed in the middle of a file is found" 0 <<'L'
UWPROF-FILE-BEGIN samples.data
bEIAAQAAAEgAAABAAAEAAAABAF4AAABeAAAAIOopswQAAAAI
[   12.3] Internal error: Oops: 17 [#1] SMP ARM
AAAAsDcAAHNh6LaDYei2l2Hotq9h
UWPROF-FILE-END
L
case_log "a WARNING in dmesg is found" 0 <<'L'
UWPROF-DMESG-BEGIN
[    3.1] WARNING: CPU: 0 PID: 1 at uwprof/sampler.c:10
UWPROF-DMESG-END
UWPROF-EXIT 0
L
case_log "Oops outside a file is found" 0 <<'L'
Oops
L

# A WARNING's report is printed whole, its call trace included, up to its
# end: the path that hit it is what a failure seen once can tell.
cat >"$tmp/console" <<'L'
[    3.4] WARNING: CPU: 1 PID: 95 at kernel/events/core.c:3320 ctx_sched_out+0x11c/0x220
[    3.4] Call trace:
[    3.4]  ctx_sched_out+0x11c/0x220
[    3.4]  __perf_install_in_context+0x1f0/0x260
[    3.4] ---[ end trace 0000000000000000 ]---
[    3.5] after the report
UWPROF-EXIT 0
L
"$check" "$tmp/console" >"$tmp/out"
expect "the report's call trace is printed, and nothing past its end" 1 \
	"$(grep -c -e '__perf_install_in_context' -e 'after the report' "$tmp/out")"
finish
