# SPDX-License-Identifier: GPL-2.0
"""Open a uwprof flame graph (report -f svg) in headless Chromium through
Selenium and check that it renders and that its own script works: a
screenshot with real content, a search (through the page's prompt) that
paints the matching boxes and reports their share, a click that zooms into
a box and "Reset zoom" that undoes it.

usage: svg_browser.py SVG FOLDED SCREENSHOT_DIR
FOLDED is report -f folded of the same data: the expected share and the
zoomed box's samples are computed from it, not from the SVG.  The
screenshots are left in SCREENSHOT_DIR.  Prints TAP lines.  Needs Debian's
chromium, chromium-driver and python3-selenium (scripts/packages-browser.txt)."""
import collections
import os
import struct
import sys
import tempfile
import zlib

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

SEARCH_FN, ZOOM_PATH = 'spin', ('main', 'run', 'work_a')
MAGENTA = (230, 0, 230)
n_test = 0
failed = 0


def check(cond, what, detail=''):
    global n_test, failed
    n_test += 1
    print('%s %d - %s' % ('ok' if cond else 'not ok', n_test, what))
    if not cond:
        failed += 1
        if detail:
            print('#   ' + str(detail).replace('\n', '\n#   '))


def png_pixels(png):
    """(width, height, list of RGB tuples) of an 8-bit RGB/RGBA PNG."""
    assert png[:8] == b'\x89PNG\r\n\x1a\n'
    pos, idat, w = 8, b'', 0
    while pos < len(png):
        n, kind = struct.unpack('>I4s', png[pos:pos + 8])
        body = png[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            w, h, depth, ctype, _, _, lace = struct.unpack('>IIBBBBB', body)
            assert depth == 8 and ctype in (2, 6) and not lace
            bpp = 3 if ctype == 2 else 4
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    raw, stride, prev, px = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        px.extend(tuple(line[i:i + 3]) for i in range(0, stride, bpp))
        prev = line
    return w, h, px


def folded_shares(path):
    """Samples in all, and those whose stack holds SEARCH_FN or starts with ZOOM_PATH."""
    total = hit = under = 0
    for line in open(path):
        stack, n = line.rsplit(' ', 1)
        frames, n = stack.split(';'), int(n)
        total += n
        hit += n if SEARCH_FN in frames else 0
        # The root's children are the outermost frames; the zoomed box is
        # the node main;run;work_a below whatever calls main.
        for i in range(len(frames) - len(ZOOM_PATH) + 1):
            if tuple(frames[i:i + len(ZOOM_PATH)]) == ZOOM_PATH and \
               frames[:i] == ['_start', '[libc.so.6]', '[libc.so.6]']:
                under += n
                break
    return total, hit, under


def main():
    svg, folded, shots = sys.argv[1:4]
    total, hit, under = folded_shares(folded)
    opts = Options()
    opts.binary_location = os.environ.get('CHROMIUM', '/usr/bin/chromium')
    profile = tempfile.mkdtemp(prefix='uwprof-chromium-')
    for a in ('--headless=new', '--no-sandbox', '--disable-gpu',
              '--disable-dev-shm-usage', '--window-size=1200,600',
              '--hide-scrollbars', '--user-data-dir=' + profile):
        opts.add_argument(a)
    opts.set_capability('goog:loggingPrefs', {'browser': 'ALL'})
    d = webdriver.Chrome(service=Service(os.environ.get('CHROMEDRIVER',
                                                        '/usr/bin/chromedriver')),
                         options=opts)
    try:
        run(d, svg, shots, total, hit, under)
    finally:
        d.quit()
    print('# svg_browser: %d checks, %d failed' % (n_test, failed))
    return 1 if failed else 0


def box(d, path):
    """The <g> of the call-tree node whose frames from the root are @path:
    a box's parent is the box one row down whose span holds its offset."""
    return d.execute_script('''
        var want = arguments[0].join(';');
        var all = Array.prototype.slice.call(document.querySelectorAll('g.n'));
        function under(o, k) {
            return all.filter(function (q) {
                return +q.getAttribute('data-d') === k && +q.getAttribute('data-o') <= o &&
                       o < +q.getAttribute('data-o') + +q.getAttribute('data-n');
            })[0];
        }
        return all.filter(function (g) {
            var names = [], o = +g.getAttribute('data-o');
            for (var k = +g.getAttribute('data-d'); k >= 1; k--)
                names.unshift(under(o, k).getAttribute('data-name'));
            return names.join(';') === want;
        })[0] || null;''', path)


def state(d):
    return d.execute_script('''
        return Array.prototype.map.call(document.querySelectorAll('g.n'), function (g) {
            var r = g.querySelector('rect');
            return [g.getAttribute('data-name'), g.style.display !== 'none',
                    +r.getAttribute('x'), +r.getAttribute('width'),
                    r.getAttribute('fill'), r.getAttribute('data-fill')];
        });''')


def run(d, svg, shots, total, hit, under):
    d.get('file://' + os.path.abspath(svg))
    check(d.execute_script('return document.documentElement.tagName') == 'svg',
          'Chromium parses the file as SVG')
    errors = [e for e in d.get_log('browser') if e.get('level') == 'SEVERE']
    check(not errors, 'no script errors on load', errors)
    nbox = d.execute_script("return document.querySelectorAll('g.n').length")
    check(nbox > 10, 'the flame graph has its boxes (%d)' % nbox)

    png = d.get_screenshot_as_png()
    open(os.path.join(shots, 'flame.png'), 'wb').write(png)
    w, h, px = png_pixels(png)
    colours = collections.Counter(px)
    bg = colours.most_common(1)[0]
    check(len(colours) >= 20 and bg[1] < 0.9 * len(px),
          'screenshot %dx%d has content: %d distinct colours, background %.0f%%'
          % (w, h, len(colours), 100.0 * bg[1] / len(px)))
    check(colours[MAGENTA] == 0, 'no search highlight before searching')

    # Search as a user does: click "Search", type into the page's prompt.
    d.find_element(By.ID, 'search').click()
    alert = d.switch_to.alert
    alert.send_keys('^%s$' % SEARCH_FN)
    alert.accept()
    st = state(d)
    painted = [s for s in st if s[4] == 'rgb(230,0,230)']
    check(painted and all(s[0] == SEARCH_FN for s in painted) and
          len(painted) == sum(1 for s in st if s[0] == SEARCH_FN),
          'search paints exactly the %s boxes (%d)' % (SEARCH_FN, len(painted)))
    want = 'Matched: %.1f%%' % (100.0 * hit / total)
    got = d.find_element(By.ID, 'matched').text
    check(got == want, 'search reports the share of samples under %s: %s' % (SEARCH_FN, got),
          'want %r' % want)
    png = d.get_screenshot_as_png()
    open(os.path.join(shots, 'flame-search.png'), 'wb').write(png)
    check(collections.Counter(png_pixels(png)[2])[MAGENTA] > 1000,
          'the highlight is on screen')
    d.find_element(By.ID, 'clear').click()
    check(all(s[4] == s[5] for s in state(d)), '"Clear" restores every colour')

    # Zoom: click the box of main;run;work_a (its rect, as a user would).
    g = box(d, ['_start', '[libc.so.6]', '[libc.so.6]'] + list(ZOOM_PATH))
    check(g is not None, 'found the box of %s' % ';'.join(ZOOM_PATH))
    if g is None:
        return
    ActionChains(d).move_to_element(g.find_element(By.TAG_NAME, 'rect')).click().perform()
    zo, zn = int(g.get_attribute('data-o')), int(g.get_attribute('data-n'))
    check(zn == under, 'the zoomed box holds its samples from the folded stacks (%d)' % zn)
    r = g.find_element(By.TAG_NAME, 'rect')
    check(abs(float(r.get_attribute('x')) - 10) < 0.01 and
          abs(float(r.get_attribute('width')) - 1180) < 0.01,
          'zoom: the box spans the full width')
    shown = d.execute_script('''
        return Array.prototype.filter.call(document.querySelectorAll('g.n'), function (g) {
            return g.style.display !== 'none';
        }).map(function (g) { return [+g.getAttribute('data-o'), +g.getAttribute('data-n')]; });''')
    outside = [s for s in shown if s[0] + s[1] <= zo or s[0] >= zo + zn]
    check(not outside and len(shown) < nbox,
          'zoom: only boxes over its span stay (%d of %d)' % (len(shown), nbox))
    check(d.find_element(By.ID, 'reset').value_of_css_property('opacity') == '1',
          'zoom: "Reset zoom" lights up')
    open(os.path.join(shots, 'flame-zoom.png'), 'wb').write(d.get_screenshot_as_png())
    d.find_element(By.ID, 'reset').click()
    st = state(d)
    check(all(s[1] for s in st) and abs(float(r.get_attribute('width')) - 1180.0 * zn / total) < 0.01,
          '"Reset zoom" shows every box at its first width again')


if __name__ == '__main__':
    sys.exit(main())
