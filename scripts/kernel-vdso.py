#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""kernel-vdso.py KERNEL_IMAGE OUT: carve the 32-bit ARM vDSO out of a
kernel image (an ARM zImage, or an arm64 Image, compressed or not), for the
tests, which need its table before the VM boots.  On a device,
'uwprof vdso' writes the same image.  Exits 1 if the image holds none (an
arm64 kernel built without COMPAT_VDSO)."""
import lzma
import re
import struct
import sys
import zlib

MAGICS = [(b'\xfd7zXZ\x00', 'xz'), (b'\x1f\x8b\x08', 'gz')]


def payloads(data):
    """The image itself and whatever compressed streams it carries."""
    yield data
    for magic, kind in MAGICS:
        for m in re.finditer(re.escape(magic), data):
            try:
                if kind == 'xz':
                    d = lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
                else:
                    d = zlib.decompressobj(wbits=31)
                out = d.decompress(data[m.start():])
            except (lzma.LZMAError, zlib.error, EOFError):
                continue
            if len(out) > 1 << 20:
                yield out


def vdso_in(blob):
    """A 32-bit little-endian ARM shared object with the vDSO's symbols."""
    for m in re.finditer(b'\x7fELF\x01\x01\x01', blob):
        at = m.start()
        hdr = blob[at:at + 52]
        if len(hdr) < 52:
            continue
        e_type, e_machine = struct.unpack_from('<HH', hdr, 16)
        e_shoff, = struct.unpack_from('<I', hdr, 32)
        e_shentsize, e_shnum = struct.unpack_from('<HH', hdr, 46)
        if e_type != 3 or e_machine != 40 or e_shentsize != 40:
            continue
        size = e_shoff + e_shnum * e_shentsize
        image = blob[at:at + size]
        if len(image) == size < 1 << 16 and b'__vdso_clock_gettime' in image:
            return image
    return None


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], 'rb') as f:
        data = f.read()
    for blob in payloads(data):
        image = vdso_in(blob)
        if image:
            with open(sys.argv[2], 'wb') as f:
                f.write(image)
            return 0
    print(f'kernel-vdso.py: no 32-bit ARM vDSO in {sys.argv[1]}', file=sys.stderr)
    return 1


if __name__ == '__main__':
    sys.exit(main())
