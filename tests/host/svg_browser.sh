#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The flame graph of uwprof report -f svg (as make demo writes it, here of
# the recorded fixture, see report_cli.sh) in headless Chromium: it renders
# (a screenshot with real content), and its own script searches and zooms
# (svg_browser.py drives it through Selenium).  make test-browser installs
# the browser and runs this; without it the test is skipped, saying so.
# Screenshots are left in build/test-browser/.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
UWPROF=${UWPROF:-$here/../../build/host/uwprof}
UWPROF=$(cd "$(dirname "$UWPROF")" && pwd)/$(basename "$UWPROF")
BUILD=${BUILD:-$here/../../build}
shots=$BUILD/test-browser
data=$here/../data/report
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$data" || exit 1

# Debian's python3, which python3-selenium installs into.
py=/usr/bin/python3
if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ] ||
   ! $py -c 'import selenium' 2>/dev/null; then
	skip "flame graph in Chromium: chromium, chromium-driver or python3-selenium missing (make test-browser installs them)"
	finish
	exit
fi
"$UWPROF" report -q --symfs . -f svg --title "fixture in the ARM VM (uwprof)" \
	-o "$tmp/flame.svg" fixture.data
"$UWPROF" report -q --symfs . -f folded fixture.data >"$tmp/folded"
mkdir -p "$shots"
cp "$tmp/flame.svg" "$shots/"
$py "$here/svg_browser.py" "$tmp/flame.svg" "$tmp/folded" "$shots" >"$tmp/out" 2>&1
rc=$?
while IFS= read -r line; do
	case $line in
	"ok "*) ok "${line#ok * - }" ;;
	"not ok "*) fail "${line#not ok * - }" ;;
	*) echo "# $line" ;;
	esac
done <"$tmp/out"
[ "$rc" -eq 0 ] || grep -q '^not ok' "$tmp/out" || fail "svg_browser.py exited $rc"
finish
