# SPDX-License-Identifier: GPL-2.0
"""Write uwprof data files (docs/DATAFILE.md) for tests that need samples
at chosen addresses, pids, threads and times without a device."""
import struct

SAMPLE, MAPPING, PROCESS, STATS, END = 1, 2, 3, 4, 5
MAP_TABLE, MAP_BIAS = 0x1, 0x2
RF_KERNEL = 0x1


def _pad8(b):
    return b + b'\0' * (-len(b) % 8)


class Writer:
    def __init__(self, path, freq_hz=1000, start_ns=1000000000):
        self.f = open(path, 'wb')
        self.samples = 0
        self.f.write(struct.pack('<8sIIIIQQ', b'UWPROFD\0', 1, 40, 0, freq_hz,
                                 start_ns, 0))

    def _rec(self, rtype, payload):
        payload = _pad8(payload)
        self.f.write(struct.pack('<II', rtype, 8 + len(payload)) + payload)

    def process(self, pid, exe, time_ns=0, flags=0):
        self._rec(PROCESS, struct.pack('<IIQ', pid, flags, time_ns) +
                  exe.encode() + b'\0')

    def mapping(self, pid, start, end, offset, path, bias=None, time_ns=0,
                build_id=b''):
        flags = MAP_BIAS if bias is not None else 0
        self._rec(MAPPING, struct.pack('<9I32sIQ', pid, start, end, offset, 0, 0,
                                       bias or 0, flags, len(build_id),
                                       build_id, 0, time_ns) +
                  path.encode() + b'\0')

    def sample(self, pid, tid, time_ns, frames, stop=0, flags=0, cpu=0):
        size = 32 + 4 * len(frames)
        self._rec(SAMPLE, struct.pack('<HHBBHIIQII', size, 1, stop, flags, cpu,
                                      pid, tid, time_ns, len(frames), 0) +
                  struct.pack('<%dI' % len(frames), *frames))
        self.samples += 1

    def close(self, end_ns=0):
        self._rec(END, struct.pack('<QQ', end_ns, self.samples))
        self.f.close()
