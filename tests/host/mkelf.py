#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a synthetic ARM32 ELF shared object for the table generator's tests.

mkelf.py OUT [--funcs N] [--dwarf-every K] [--extab-every K]
             [--cantunwind-every K] [--varied] [--plt N] [--lld-plt N]
             [--extab-addr-zero] [--extab-nobits] [--extab-target ADDR]

N functions of 8 bytes each in .text ("push {r4, lr}; pop {r4, pc}"),
each with a symbol, a $a mapping symbol and an .ARM.exidx entry: inline
compact opcodes, CANTUNWIND (every K-th, --cantunwind-every), or (every
K-th, --extab-every) a PR1 entry in .ARM.extab.  Every K-th function
(--dwarf-every) also has an FDE in .debug_frame, so the EHABI reader must
step around DWARF functions.  --varied makes functions 128 bytes with the
push and pop at offsets and of registers that vary by function, so the
DWARF functions need about 2,000 distinct row lists (FOT sharing).  --plt N
adds a .plt of PLT0 and N ARM stubs with their $a/$d mapping symbols.
--lld-plt N lays the file out as lld does: .plt after .text, PLT0 and each
stub padded with lld's trap word (no mapping symbols there, as stripped),
and the index ended by a CANTUNWIND sentinel at the end of .text (right at
.plt's start when .text ends 16-byte aligned: an even number of
functions; in the padding before it otherwise).
The --extab-* options make hostile files:
  --extab-addr-zero   .ARM.extab's sh_addr is 0
  --extab-nobits      .ARM.extab is SHT_NOBITS (no bytes in the file)
  --extab-target A    the first extab-using exidx entry points at address A
No assembler is needed, so the test suite can make 300,000 functions in a
second or two.
"""
import argparse
import struct

SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHT_NOBITS = 1, 2, 3, 8
SHT_ARM_EXIDX = 0x70000001
SHF_ALLOC, SHF_EXEC, SHF_LINK_ORDER = 0x2, 0x4, 0x80
TEXT_ADDR = 0x1000
FUNC_SIZE = 8
PUSH_POP = struct.pack('<II', 0xe92d4010, 0xe8bd8010)
NOP = 0xe1a00000                        # mov r0, r0
PLT0 = [0xe52de004, 0xe59fe004, 0xe08fe00e, 0xe5bef008, 0x00010000]
LLD_TRAP = 0xd4d4d4d4
# str lr, [sp, #-4]!; add lr, pc, #0, 12; add lr, lr, #0x21000;
# ldr pc, [lr, #0x2f0]!; four trap words
LLD_PLT0 = [0xe52de004, 0xe28fe600, 0xe28eea21, 0xe5bef2f0] + [LLD_TRAP] * 4
# vsp += 0 (none); pop {r4, r14}; finish
INLINE_WORD = 0x808401b0


def align(n, a):
    return (n + a - 1) // a * a


def prel31(target, where):
    return (target - where) & 0x7fffffff


def shape(i, varied):
    """(size, push offset, pop offset, saved registers r4..r(3+k))."""
    if not varied:
        return FUNC_SIZE, 0, 4, 1
    a = i % 31
    b = a + 1 + (i // 31) % (31 - a)
    return 128, 4 * a, 4 * b, 1 + (i // 961) % 4


def code(i, varied):
    size, push, pop, k = shape(i, varied)
    regs = ((1 << k) - 1) << 4
    words = [NOP] * (size // 4)
    words[push // 4] = 0xe92d4000 | regs   # push {r4.., lr}
    words[pop // 4] = 0xe8bd8000 | regs    # pop {r4.., pc}
    return struct.pack('<%dI' % len(words), *words)


def fde_ops(i, varied):
    """After the push, CFA = sp + 4(k+1), lr at CFA-4, r4.. below it;
    after the pop (a return) nothing is saved."""
    size, push, pop, k = shape(i, varied)
    ops = bytes([0x02, push + 4, 0x0e, 4 * (k + 1), 0x8e, 1])  # advance_loc1
    for r in range(k):
        ops += bytes([0x80 | (4 + r), 2 + r])
    if pop + 4 < size:
        ops += bytes([0x02, pop - push, 0x0e, 0, 0xc0 | 14])
        ops += bytes(0xc0 | (4 + r) for r in range(k))
    return size, ops


def debug_frame(funcs, varied):
    """A CIE (sp+0, ra = lr) and one FDE per function."""
    cie_body = struct.pack('<IB', 0xffffffff, 1) + b'\0' + bytes([1, 0x7c, 14])
    cie_body += bytes([0x0c, 13, 0])          # def_cfa sp, 0
    cie_body = cie_body.ljust(align(len(cie_body), 4), b'\0')
    out = bytearray(struct.pack('<I', len(cie_body)) + cie_body)
    for i, addr in funcs:
        size, ops = fde_ops(i, varied)
        body = struct.pack('<III', 0, addr, size) + ops
        body = body.ljust(align(len(body), 4), b'\0')
        out += struct.pack('<I', len(body)) + body
    return bytes(out)


def build(a):
    n = a.funcs
    # .plt first, as ld places it, then .text; lld puts it after .text
    plt_addr = a.text_addr
    plt = b''
    if a.plt:
        words = list(PLT0)
        for j in range(a.plt):
            words += [0xe28fc600, 0xe28cca00 | (j >> 8 & 0xff), 0xe5bcf000 | (j & 0xff) << 2]
        plt = struct.pack('<%dI' % len(words), *words)
    elif a.lld_plt:
        words = list(LLD_PLT0)
        for j in range(a.lld_plt):
            words += [0xe28fc600, 0xe28cca21, 0xe5bcf000 | (j & 0xff) << 2,
                      LLD_TRAP]
        plt = struct.pack('<%dI' % len(words), *words)
    text_addr = align(plt_addr + (0 if a.lld_plt else len(plt)), 64)
    sizes = [shape(i, a.varied)[0] for i in range(n)]
    addrs, at = [], text_addr
    for sz in sizes:
        addrs.append(at)
        at += sz
    text = b''.join(code(i, a.varied) for i in range(n))
    text_end = text_addr + len(text)
    if a.lld_plt:
        plt_addr = align(text_end, 16)
    extab_addr = align(plt_addr + len(plt) if a.lld_plt else text_end, 4)
    extab = bytearray()
    ex_users = []
    for i in range(n):
        if a.extab_every and i % a.extab_every == 0:
            ex_users.append((i, len(extab)))
            # PR1, no extra words: pop {r4, r14}; then a finish word
            extab += struct.pack('<I', 0x81008401)
    exidx_addr = align(extab_addr + len(extab), 8)
    exidx = bytearray()
    ex_map = dict(ex_users)
    first_user = ex_users[0][0] if ex_users else None
    for i, fa in enumerate(addrs):
        where = exidx_addr + 8 * i
        if i in ex_map:
            target = extab_addr + ex_map[i]
            if a.extab_target is not None and i == first_user:
                target = a.extab_target
            word = prel31(target, where + 4)
        elif a.cantunwind_every and i % a.cantunwind_every == 0:
            word = 1
        else:
            word = INLINE_WORD
        exidx += struct.pack('<II', prel31(fa, where), word)
    if a.lld_plt:
        where = exidx_addr + len(exidx)
        exidx += struct.pack('<II', prel31(text_end, where), 1)
    dwarf = [(i, fa) for i, fa in enumerate(addrs)
             if a.dwarf_every and i % a.dwarf_every == 0]
    dframe = debug_frame(dwarf, a.varied) if dwarf else b''

    strtab = bytearray(b'\0')
    syms = bytearray(b'\0' * 16)
    text_sec = 2 if a.plt else 1     # .plt after .text with --lld-plt
    mapsyms = [(fa, 'a', text_sec) for fa in addrs]
    if a.plt:
        plt_sec = 1
        mapsyms += [(plt_addr, 'a', plt_sec), (plt_addr + 16, 'd', plt_sec),
                    (plt_addr + 20, 'a', plt_sec)]
    for fa, kind, sec in mapsyms:
        # STB_LOCAL, STT_NOTYPE: the mapping symbols come first
        strtab += b'$%s\0' % kind.encode()
        syms += struct.pack('<IIIBBH', len(strtab) - 3, fa, 0, 0, 0, sec)
    nlocal = len(syms) // 16
    for i, fa in enumerate(addrs):
        name_off = len(strtab)
        strtab += b'f%d\0' % i
        # STB_GLOBAL, STT_FUNC, in .text
        syms += struct.pack('<IIIBBH', name_off, fa, sizes[i], 0x12, 0, text_sec)

    secs = []  # name, type, flags, addr, data, link, info, align, entsize
    plt_secs = [('.plt', SHT_PROGBITS, SHF_ALLOC | SHF_EXEC, plt_addr, plt,
                 0, 0, 4, 0)] if plt else []
    if a.plt:
        secs += plt_secs
    secs += [
        ('.text', SHT_PROGBITS, SHF_ALLOC | SHF_EXEC, text_addr, text, 0, 0, 4, 0),
    ]
    if a.lld_plt:
        secs += plt_secs
    secs += [
        ('.ARM.extab', SHT_NOBITS if a.extab_nobits else SHT_PROGBITS,
         SHF_ALLOC, 0 if a.extab_addr_zero else extab_addr, bytes(extab),
         0, 0, 4, 0),
        ('.ARM.exidx', SHT_ARM_EXIDX, SHF_ALLOC | SHF_LINK_ORDER, exidx_addr,
         bytes(exidx), text_sec, 0, 4, 8),
    ]
    if dframe:
        secs.append(('.debug_frame', SHT_PROGBITS, 0, 0, dframe, 0, 0, 4, 0))
    symtab_idx = len(secs) + 1
    secs.append(('.symtab', SHT_SYMTAB, 0, 0, bytes(syms), symtab_idx + 1,
                 nlocal, 4, 16))
    secs.append(('.strtab', SHT_STRTAB, 0, 0, bytes(strtab), 0, 0, 1, 0))
    shstr = bytearray(b'\0')
    names = []
    for s in secs + [('.shstrtab',)]:
        names.append(len(shstr))
        shstr += s[0].encode() + b'\0'
    secs.append(('.shstrtab', SHT_STRTAB, 0, 0, bytes(shstr), 0, 0, 1, 0))

    # Allocated sections sit at file offset == address (one R+X PT_LOAD).
    img = bytearray(a.text_addr)
    offsets = []
    for s in secs:
        _, typ, flags, addr, data = s[:5]
        if flags & SHF_ALLOC:
            off = s[3] if s[3] else len(img)
            if s[0] == '.ARM.extab':
                off = extab_addr
        else:
            off = align(len(img), 4)
        if len(img) < off:
            img += bytes(off - len(img))
        offsets.append(off)
        if typ != SHT_NOBITS:
            img[off:off + len(data)] = data
    load_end = exidx_addr + len(exidx)
    shoff = align(len(img), 4)
    img += bytes(shoff - len(img))
    img += bytes(40)
    for s, off, nm in zip(secs, offsets, names):
        _, typ, flags, addr, data, link, info, al, es = s
        img += struct.pack('<10I', nm, typ, flags, addr, off, len(data), link,
                           info, al, es)
    ehdr = struct.pack('<16sHHIIIIIHHHHHH',
                       b'\x7fELF\x01\x01\x01' + bytes(9), 3, 40, 1, 0,
                       52, shoff, 0x05000400, 52, 32, 1, 40, len(secs) + 1,
                       len(secs))
    phdr = struct.pack('<8I', 1, 0, 0, 0, load_end, load_end, 5, 0x1000)
    img[0:52] = ehdr
    img[52:84] = phdr
    return bytes(img)


def main():
    p = argparse.ArgumentParser()
    p.add_argument('out')
    p.add_argument('--funcs', type=int, default=16)
    p.add_argument('--text-addr', type=lambda s: int(s, 0), default=TEXT_ADDR,
                   help='where code starts (file offset too); small for fuzz seeds')
    p.add_argument('--dwarf-every', type=int, default=0)
    p.add_argument('--extab-every', type=int, default=0)
    p.add_argument('--cantunwind-every', type=int, default=0)
    p.add_argument('--varied', action='store_true')
    p.add_argument('--plt', type=int, default=0)
    p.add_argument('--lld-plt', type=int, default=0)
    p.add_argument('--extab-addr-zero', action='store_true')
    p.add_argument('--extab-nobits', action='store_true')
    p.add_argument('--extab-target', type=lambda s: int(s, 0))
    a = p.parse_args()
    with open(a.out, 'wb') as f:
        f.write(build(a))


if __name__ == '__main__':
    main()
