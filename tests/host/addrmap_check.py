# SPDX-License-Identifier: GPL-2.0
"""Half of tests/host/addrmap_cli.sh: one program, run under qemu-arm, has
printed the runtime address of its and its library's functions and its
/proc/self/maps.  The true bias of each file is runtime address - symbol
table address.  Checked: record's bias (addrmap_probe), attach's runtime
text range, addr2line at the true link address, and the names uwprof
report gives to samples at those addresses, with the bias in the data file
and without (report works it out).  Prints one "ok|fail<TAB>message" per
check."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import uwdata  # noqa: E402

variant, out, uwprof, probe, tmp, cross = sys.argv[1:7]


def say(good, msg):
    print('%s\t%s: %s' % ('ok' if good else 'fail', variant, msg))


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


funcs, maps = {}, []
for line in open(out):
    w = line.split()
    if w[0] == 'func':
        funcs[w[1]] = int(w[2], 16) & ~1
    elif w[0] == 'map' and len(w) >= 7 and w[2][2] == 'x' and w[6].startswith('/'):
        s, e = (int(x, 16) for x in w[1].split('-'))
        maps.append((s, e, int(w[3], 16), w[6]))

syms = {}
for m in {m[3] for m in maps}:
    syms[m] = {}
    for line in run(cross + 'nm', '-S', '--defined-only', m).splitlines():
        w = line.split()
        if len(w) == 4:
            syms[m][w[3]] = (int(w[0], 16) & ~1, int(w[1], 16))

truth = {}     # file -> true bias
where = {}     # function -> (mapping, link address, size)
for name, addr in funcs.items():
    m = next((m for m in maps if m[0] <= addr < m[1]), None)
    if not m or name not in syms[m[3]]:
        say(False, '%s at %#x: in no executable mapping of a file that has it' % (name, addr))
        continue
    link, size = syms[m[3]][name]
    where[name] = (m, link, size)
    bias = (addr - link) & 0xffffffff
    if truth.setdefault(m[3], bias) != bias:
        say(False, '%s: two biases for one file' % name)

# addr2line at the true link address of each function's middle: the test's
# own footing.
for name, (m, link, size) in sorted(where.items()):
    got = run(cross + 'addr2line', '-f', '-e', m[3], '%x' % (link + size // 2)).split('\n')[0]
    say(got == name, 'addr2line names %s at its true link address (%s)' % (name, got))

# Record's side: the bias it writes and the table range attach gives.
probed = {}
for s, e, off, path in maps:
    if path not in truth:
        continue
    table = os.path.join(tmp, os.path.basename(path) + '.' + variant + '.uwt')
    run(uwprof, 'table', path, '-o', table)
    lines = dict(l.split(' ', 1) for l in run(probe, path, hex(s), hex(e), hex(off), table).splitlines())
    bias = None if lines['bias'] == 'none' else int(lines['bias'], 16)
    probed[(s, path)] = bias
    base = os.path.basename(path)
    say(bias == truth[path], 'record: bias of %s is %s, true %#x' % (
        base, lines['bias'], truth[path]))
    text = lines['text'].split()
    inside = text[0] != 'none' and all(
        int(text[0], 16) <= funcs[n] < int(text[1], 16)
        for n, w in where.items() if w[0][3] == path)
    say(inside, 'attach: %s text range %s holds its functions' % (base, lines['text']))

# Report's side: a sample at the start and the middle of each function.
for with_bias in (True, False):
    data = os.path.join(tmp, '%s-%d.data' % (variant, with_bias))
    w = uwdata.Writer(data)
    w.process(100, out)
    for s, e, off, path in maps:
        w.mapping(100, s, e, off, path,
                  bias=probed.get((s, path)) if with_bias else None)
    for name, (m, link, size) in sorted(where.items()):
        w.sample(100, 100, 2000000000, [funcs[name]])
        w.sample(100, 100, 2000000000, [funcs[name] + size // 2])
    w.close()
    got = {}
    for line in run(uwprof, 'report', '-q', '-f', 'folded', data).splitlines():
        stack, n = line.rsplit(' ', 1)
        got[stack] = int(n)
    want = {n: 2 for n in where}
    say(got == want, 'report (%s) names every sample: %s' % (
        'bias in the data file' if with_bias else 'bias worked out by report',
        'ok' if got == want else 'got %s' % sorted(got.items())))
