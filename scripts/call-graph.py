#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Which source file calls which, and whether calls go one way.

usage: scripts/call-graph.py [--edges] [PART...]

PART is "module" (the kernel module's top-level .c files) or "tools"
(every .c file under tools/uwprof); both by default.  For each part it
prints the files in layers, lowest first: a file calls (or names) only
functions of files in lower layers.  Files that call each other, directly
or round a longer loop, cannot be layered: each such circle is printed
with the names that tie it, and the exit status is 1.  --edges also
prints every edge (file -> file: names).

A file "uses" another when it names a function the other defines and does
not keep static: a call, or its address taken (a callback it hands on).
Definitions come from universal-ctags; uses are the identifiers of the
source with comments and string literals removed.  The kernel module and
the tools are separate programs, so each part is its own graph.  Names
defined twice in a part (each of two programs' own main-like helpers) tie
the user to the first file that defines them, in sorted order.
"""
import json
import os
import re
import shutil
import subprocess
import sys

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))


def part_files(part):
    if part == 'module':
        return sorted(f for f in os.listdir(TOP)
                      if f.endswith('.c') and not f.endswith('.mod.c'))
    out = []
    for dirpath, _, names in os.walk(os.path.join(TOP, 'tools', 'uwprof')):
        out += [os.path.relpath(os.path.join(dirpath, n), TOP)
                for n in names if n.endswith('.c')]
    return sorted(out)


def definitions(files):
    """name -> file for every function a file defines without static."""
    ctags = shutil.which('ctags-universal') or 'ctags'
    run = subprocess.run([ctags, '--output-format=json', '--languages=C',
                          '--language-force=C', '--c-kinds=f', '--fields=+F',
                          '-f', '-'] + files, cwd=TOP, capture_output=True,
                         text=True, check=True)
    defs = {}
    for line in run.stdout.splitlines():
        tag = json.loads(line)
        if tag.get('_type') == 'tag' and not tag.get('file'):
            defs.setdefault(tag['name'], tag['path'])
    return defs


# comments, then string and character literals (escapes included)
STRIP = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                   re.S)
IDENT = re.compile(r'\b[A-Za-z_]\w*\b')


def uses(files, defs):
    """file -> {used file: sorted names}."""
    graph = {}
    for f in files:
        with open(os.path.join(TOP, f), errors='replace') as fh:
            text = STRIP.sub(' ', fh.read())
        edges = {}
        for name in set(IDENT.findall(text)):
            g = defs.get(name)
            if g and g != f:
                edges.setdefault(g, []).append(name)
        graph[f] = {g: sorted(n) for g, n in edges.items()}
    return graph


def circles(graph):
    """Sets of more than one file that reach each other (Tarjan, iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def layers(graph):
    """Layer of each file: 0 uses nobody, else 1 + the highest it uses."""
    layer = {}
    pending = sorted(graph)
    while pending:
        rest = []
        for f in pending:
            below = [layer.get(g) for g in graph[f]]
            if None in below:
                rest.append(f)
            else:
                layer[f] = 1 + max(below, default=-1)
        if len(rest) == len(pending):	# a circle: cannot be layered
            break
        pending = rest
    return layer


def report(part, show_edges):
    files = part_files(part)
    graph = uses(files, definitions(files))
    found = circles(graph)
    print('== %s: %d files' % (part, len(files)))
    layer = layers(graph)
    for n in sorted(set(layer.values())):
        print('layer %d: %s' % (n, ' '.join(f for f in files if layer.get(f) == n)))
    if len(layer) < len(files):
        print('not layered (in a circle, or using one): %s' %
              ' '.join(f for f in files if f not in layer))
    if show_edges:
        for f in files:
            for g, names in sorted(graph[f].items()):
                print('  %s -> %s: %s' % (f, g, ', '.join(names)))
    for k, comp in enumerate(found, 1):
        print('circle %d: %s' % (k, ', '.join(comp)))
        for a in comp:
            for b in comp:
                if b in graph[a]:
                    print('  %s -> %s: %s' % (a, b, ', '.join(graph[a][b])))
    print('%s: %d circles' % (part, len(found)))
    return not found


def main(argv):
    show_edges = '--edges' in argv
    parts = [a for a in argv if a != '--edges'] or ['module', 'tools']
    for p in parts:
        if p not in ('module', 'tools'):
            print('call-graph: unknown part %r (module or tools)' % p,
                  file=sys.stderr)
            return 2
    ok = True
    for p in parts:
        ok &= report(p, show_edges)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
