#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write a zip as an APK is laid out for libraries mapped in place.

    mkapk.py OUT.zip ENTRY=FILE[:stored|:deflated] ...

A stored entry's data is aligned to 4096 bytes, as Android's `zipalign -p`
does: the local header's extra field is padded with an alignment field
(id 0xd935: the alignment, then zeros).  Prints "ENTRY DATA_OFFSET SIZE"
for each entry.
"""
import struct
import sys
import zipfile

ALIGN = 4096
LOCAL_HEADER = 30


def main():
    out, specs = sys.argv[1], sys.argv[2:]
    with zipfile.ZipFile(out, "w") as z:
        for spec in specs:
            name, src = spec.split("=", 1)
            how = "stored"
            if src.endswith((":stored", ":deflated")):
                src, how = src.rsplit(":", 1)
            data = open(src, "rb").read()
            zi = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            zi.create_system = 3
            zi.external_attr = 0o644 << 16
            if how == "stored":
                zi.compress_type = zipfile.ZIP_STORED
                start = z.fp.tell() + LOCAL_HEADER + len(name.encode())
                pad = (-(start + 6)) % ALIGN
                zi.extra = struct.pack("<HHH", 0xd935, 2 + pad, ALIGN) + b"\0" * pad
            else:
                zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
            off = zi.header_offset + LOCAL_HEADER + len(name.encode()) + len(zi.extra)
            print(name, off, len(data))


if __name__ == "__main__":
    main()
