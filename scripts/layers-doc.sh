#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make layers-doc: rewrite the generated part of docs/LAYERS.md, the lines
# between its "<!-- call-graph: begin -->" and "<!-- call-graph: end -->"
# markers, with what scripts/call-graph.py prints now: the module's files
# in layers with every edge, and the tools' layers and circles.  The text
# names the commit it was made from (and says so if the sources had
# uncommitted changes).  The hand-written part around it is kept.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
doc=$top/docs/LAYERS.md
cd "$top"

commit=$(git rev-parse --short=12 HEAD)
git diff --quiet HEAD -- '*.c' '*.h' Kbuild || commit="$commit, with uncommitted changes"

gen=$(mktemp)
trap 'rm -f "$gen" "$gen.doc"' EXIT
{
	echo "Made by \`make layers-doc\` from commit $commit."
	echo
	echo '```'
	echo '$ scripts/call-graph.py --edges module'
	scripts/call-graph.py --edges module || true
	echo
	echo '$ scripts/call-graph.py tools'
	scripts/call-graph.py tools || true
	echo '```'
} >"$gen"

awk -v gen="$gen" '
	/^<!-- call-graph: begin -->$/ {
		print
		while ((getline line < gen) > 0)
			print line
		skip = 1
		next
	}
	/^<!-- call-graph: end -->$/ { skip = 0 }
	!skip { print }
' "$doc" >"$gen.doc"
grep -q '^<!-- call-graph: end -->$' "$gen.doc" ||
	{ echo "layers-doc: no call-graph markers in $doc" >&2; exit 1; }
mv "$gen.doc" "$doc"
echo "layers-doc: $doc from $commit"
