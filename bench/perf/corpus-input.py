#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""corpus-input.py SIZE_MB OUT: the corpus workloads' input, the same bytes
on every run.  Text of words drawn from a fixed vocabulary with a skewed
(Zipf-like) frequency, numbers and punctuation, so that the compressors
find matches at all distances but cannot skip the work as on constant or
random data."""
import random
import sys


def main():
    size = int(sys.argv[1]) << 20
    rng = random.Random(20261122)
    letters = "etaoinshrdlcumwfgypbvkjxqz"
    vocab = ["".join(rng.choice(letters[:rng.randint(6, 26)])
                     for _ in range(rng.randint(2, 11))) for _ in range(6000)]
    weights = [1.0 / (i + 1) for i in range(len(vocab))]
    out = []
    n = 0
    while n < size:
        words = rng.choices(vocab, weights, k=rng.randint(4, 18))
        if rng.random() < 0.2:
            words.append(str(rng.randint(0, 10 ** rng.randint(1, 9))))
        line = " ".join(words) + rng.choice([".", ",", ";", "", "!"]) + "\n"
        out.append(line)
        n += len(line)
    with open(sys.argv[2], "w", encoding="ascii") as f:
        f.write("".join(out)[:size])


main()
