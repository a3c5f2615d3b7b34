# SPDX-License-Identifier: GPL-2.0
"""Write uwprof data files (docs/DATAFILE.md) for tests that need samples
at chosen addresses, pids, threads and times without a device."""
import struct

SAMPLE, MAPPING, PROCESS, STATS, END, COMM, FORK, EXIT, IMAGE, JITMAP, \
    SAMPLES = range(1, 12)
JIT_PERF_MAP, JIT_DUMP = 1, 2
HDR_TIMED = 0x1
HDR_ALL = 0x2
PROC_EXEC = COMM_EXEC = 0x1
MAP_TABLE, MAP_BIAS = 0x1, 0x2
RF_KERNEL = 0x1


def _pad8(b):
    return b + b'\0' * (-len(b) % 8)


class Writer:
    def __init__(self, path, freq_hz=1000, start_ns=1000000000, flags=0,
                 version=1):
        self.f = open(path, 'wb')
        self.samples = 0
        self.block = None
        self.f.write(struct.pack('<8sIIIIQQ', b'UWPROFD\0', version, 40,
                                 flags, freq_hz, start_ns, 0))

    def _rec(self, rtype, payload):
        payload = _pad8(payload)
        self.f.write(struct.pack('<II', rtype, 8 + len(payload)) + payload)

    def process(self, pid, exe, time_ns=0, flags=0):
        self._rec(PROCESS, struct.pack('<IIQ', pid, flags, time_ns) +
                  exe.encode() + b'\0')

    def comm(self, pid, tid, name, time_ns=0, flags=0):
        self._rec(COMM, struct.pack('<IIIIQ', pid, tid, flags, 0, time_ns) +
                  name.encode() + b'\0')

    def fork(self, pid, ppid, time_ns):
        self._rec(FORK, struct.pack('<IIQ', pid, ppid, time_ns))

    def exit(self, pid, time_ns):
        self._rec(EXIT, struct.pack('<IIQ', pid, 0, time_ns))

    def mapping(self, pid, start, end, offset, path, bias=None, time_ns=0,
                build_id=b'', elf_offset=0):
        flags = MAP_BIAS if bias is not None else 0
        self._rec(MAPPING, struct.pack('<9I32sIQ', pid, start, end, offset, 0, 0,
                                       bias or 0, flags, len(build_id),
                                       build_id, elf_offset, time_ns) +
                  (path if isinstance(path, bytes) else path.encode()) +
                  b'\0')

    def image(self, build_id, data):
        self._rec(IMAGE, struct.pack('<II32s', len(data), len(build_id),
                                     build_id) + data)

    def jitmap(self, pid, fmt, data):
        self._rec(JITMAP, struct.pack('<IIII', pid, fmt, len(data), 0) + data)

    def sample(self, pid, tid, time_ns, frames, stop=0, flags=0, cpu=0):
        size = 32 + 4 * len(frames)
        rec = struct.pack('<HHBBHIIQII', size, 1, stop, flags, cpu, pid, tid,
                          time_ns, len(frames), 0) + \
            struct.pack('<%dI' % len(frames), *frames)
        if self.block is None:
            self._rec(SAMPLE, rec)
        else:
            self.block += _pad8(rec)
        self.samples += 1

    def begin_block(self):
        """Samples from here to end_block() go into one block record
        (type 11, a version 2 file), as uwprof record writes them."""
        self.block = b''

    def end_block(self, raw=b''):
        """The block, with @raw bytes after its samples (a test's damage)."""
        self._rec(SAMPLES, self.block + raw)
        self.block = None

    def close(self, end_ns=0):
        self._rec(END, struct.pack('<QQ', end_ns, self.samples))
        self.f.close()


def jitdump(pid, loads):
    """A jitdump file (perf's format) of code-load records (addr, size,
    name, code bytes)."""
    out = struct.pack('<IIIIIIQQ', 0x4A695444, 1, 40, 40, 0, pid, 0, 0)
    for i, (addr, size, name, code) in enumerate(loads):
        body = struct.pack('<IIQQQQ', pid, pid, addr, addr, size, i) + \
            name.encode() + b'\0' + code
        out += struct.pack('<IIQ', 0, 16 + len(body), 0) + body
    return out


def records(path):
    """Every record of a data file as (type, dict), in file order."""
    b = open(path, 'rb').read()
    flags = struct.unpack_from('<I', b, 16)[0]
    pos = struct.unpack_from('<I', b, 12)[0]
    out = [('header', {'flags': flags})]
    while pos + 8 <= len(b):
        t, size = struct.unpack_from('<II', b, pos)
        if size < 8 or pos + size > len(b):
            break
        p = b[pos + 8:pos + size]
        pos += size
        if t in (SAMPLE, SAMPLES):
            # a block holds samples back to back, each its own size
            # rounded up to 8
            at = 0
            while at + 32 <= len(p):
                (size, _, stop, fl, cpu, pid, tid, time_ns, n,
                 _) = struct.unpack_from('<HHBBHIIQII', p, at)
                frames = struct.unpack_from('<%dI' % n, p, at + 32)
                out.append(('sample', dict(pid=pid, tid=tid, time=time_ns,
                                           stop=stop, flags=fl,
                                           frames=frames)))
                if t == SAMPLE or size < 32:
                    break
                at += (size + 7) & ~7
        elif t == MAPPING:
            v = struct.unpack_from('<9I32sIQ', p)
            out.append(('mapping', dict(pid=v[0], start=v[1], end=v[2],
                                        offset=v[3], bias=v[6], flags=v[7],
                                        time=v[11],
                                        elf_offset=v[10],
                                        path=p[80:].split(b'\0')[0].decode())))
        elif t == PROCESS:
            pid, fl, time_ns = struct.unpack_from('<IIQ', p)
            out.append(('process', dict(pid=pid, flags=fl, time=time_ns,
                                        exe=p[16:].split(b'\0')[0].decode())))
        elif t == COMM:
            pid, tid, fl, _, time_ns = struct.unpack_from('<IIIIQ', p)
            out.append(('comm', dict(pid=pid, tid=tid, flags=fl, time=time_ns,
                                     name=p[24:].split(b'\0')[0].decode())))
        elif t == FORK:
            pid, ppid, time_ns = struct.unpack_from('<IIQ', p)
            out.append(('fork', dict(pid=pid, ppid=ppid, time=time_ns)))
        elif t == EXIT:
            pid, _, time_ns = struct.unpack_from('<IIQ', p)
            out.append(('exit', dict(pid=pid, time=time_ns)))
        elif t == END:
            out.append(('end', {}))
    return out


if __name__ == '__main__':
    import sys
    for kind, d in records(sys.argv[1]):
        if kind != 'sample' or '-s' in sys.argv:
            print(kind, ' '.join('%s=%s' % (k, hex(v) if k in ('start', 'end') else v)
                                 for k, v in d.items()))
