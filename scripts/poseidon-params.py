#!/usr/bin/env python3
"""Poseidon P128Pow5T3 over Pallas's F_p, the parameters Orchard's nullifiers use, made again
from their definition: the Grain LFSR of the Poseidon paper (Grassi et al., 2019, appendix F)
seeded with (prime field, x^5, n = 255, t = 3, R_F = 8, R_P = 56), round constants by
rejection below p, then a Cauchy MDS matrix 1/(x_i + y_j) from the same stream.

    poseidon-params.py            prints the constants as Swift, for Sources/Zcash/Poseidon.swift
    poseidon-params.py --check F  checks the permutation against a vectors file (orchard_poseidon.json)
"""
import json
import sys

P = 0x40000000000000000000000000000000224698fc094cf91b992d30ed00000001
N, T, RF, RP = 255, 3, 8, 56


def grain():
    bits = []
    for value, width in ((1, 2), (0, 4), (N, 12), (T, 12), (RF, 10), (RP, 10)):
        bits += [(value >> (width - 1 - i)) & 1 for i in range(width)]
    bits += [1] * 30

    def step():
        new = bits[62] ^ bits[51] ^ bits[38] ^ bits[23] ^ bits[13] ^ bits[0]
        bits.pop(0)
        bits.append(new)
        return new

    for _ in range(160):
        step()
    while True:
        # Self-shrinking: a pair (1, b) gives b; a pair (0, b) gives nothing.
        first, second = step(), step()
        if first == 1:
            yield second


def integer(stream, n):
    value = 0
    for _ in range(n):
        value = value << 1 | next(stream)
    return value


def parameters():
    stream = grain()
    constants = []
    while len(constants) < (RF + RP) * T:
        c = integer(stream, N)
        if c < P:
            constants.append(c)
    while True:
        values = [integer(stream, N) % P for _ in range(2 * T)]
        if len(set(values)) != 2 * T:
            continue
        xs, ys = values[:T], values[T:]
        if any((x + y) % P == 0 for x in xs for y in ys):
            continue
        mds = [[pow(x + y, P - 2, P) for y in ys] for x in xs]
        return constants, mds


def permute(state, constants, mds):
    state = list(state)
    k = 0
    for r in range(RF + RP):
        state = [(s + constants[k + i]) % P for i, s in enumerate(state)]
        k += T
        full = r < RF // 2 or r >= RF // 2 + RP
        state = [pow(s, 5, P) if full or i == 0 else s for i, s in enumerate(state)]
        state = [sum(mds[i][j] * state[j] for j in range(T)) % P for i in range(T)]
    return state


def le(hex_text):
    return int.from_bytes(bytes.fromhex(hex_text), "little")


def main():
    constants, mds = parameters()
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        rows = json.load(open(sys.argv[2]))[2:]
        for initial, final in rows:
            got = permute([le(h) for h in initial], constants, mds)
            assert got == [le(h) for h in final], (initial, got)
        print("%d permutations match" % len(rows))
        return
    print("    static let roundConstants: [PallasBase] = [")
    for i in range(0, len(constants), T):
        print("        " + ", ".join('"%064x"' % c for c in constants[i:i + T]) + ",")
    print("    ].map(PallasBase.init(hex:))")
    print("    static let mds: [[PallasBase]] = [")
    for row in mds:
        print("        [" + ", ".join('"%064x"' % c for c in row) + "].map(PallasBase.init(hex:)),")
    print("    ]")


if __name__ == "__main__":
    main()
