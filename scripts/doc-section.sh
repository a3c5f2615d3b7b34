#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# doc-section.sh TARGET FIGURES DOC [fenced|markdown]: puts the figures
# file that "make TARGET" wrote into DOC between its lines
# "<!-- make TARGET: begin -->" and "<!-- make TARGET: end -->", as the
# run printed it (in a code block, or as markdown with "markdown"), so
# that a page's figures are always the last run's and name its commit.
# Fails if DOC lacks the two lines.
set -euo pipefail
target=$1 figs=$2 doc=$3 kind=${4:-fenced}
begin="<!-- make $target: begin -->" end="<!-- make $target: end -->"
[ -s "$figs" ] || { echo "doc-section: no figures in $figs" >&2; exit 1; }
grep -qxF "$begin" "$doc" && grep -qxF "$end" "$doc" ||
	{ echo "doc-section: $doc has no '$begin' ... '$end' section" >&2; exit 1; }
awk -v b="$begin" -v e="$end" -v f="$figs" -v k="$kind" '
	$0 == b { print; print ""; if (k == "fenced") print "```"
		  while ((getline l < f) > 0) print l
		  if (k == "fenced") print "```"; print ""; skip = 1; next }
	$0 == e { skip = 0 }
	!skip' "$doc" >"$doc.tmp"
mv "$doc.tmp" "$doc"
echo "doc-section: wrote $figs into $doc"
