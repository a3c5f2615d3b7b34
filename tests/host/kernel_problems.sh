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
finish
