#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# unwind-doc.sh FIGURES DOC: puts the figures file bench/run.sh wrote (make
# bench-unwind) into DOC (docs/UNWIND-COST.md) between its lines
# "<!-- make bench-unwind: begin -->" and "<!-- make bench-unwind: end -->",
# as the run printed it, so that the page's current figures are the last
# run's and name its commit.  Fails if DOC lacks the two lines.
set -euo pipefail
figs=$1 doc=$2
begin='<!-- make bench-unwind: begin -->' end='<!-- make bench-unwind: end -->'
[ -s "$figs" ] || { echo "unwind-doc: no figures in $figs" >&2; exit 1; }
grep -qxF "$begin" "$doc" && grep -qxF "$end" "$doc" ||
	{ echo "unwind-doc: $doc has no '$begin' ... '$end' section" >&2; exit 1; }
awk -v b="$begin" -v e="$end" -v f="$figs" '
	$0 == b { print; print ""; print "```"
		  while ((getline l < f) > 0) print l
		  print "```"; print ""; skip = 1; next }
	$0 == e { skip = 0 }
	!skip' "$doc" >"$doc.tmp"
mv "$doc.tmp" "$doc"
echo "unwind-doc: wrote $figs into $doc"
