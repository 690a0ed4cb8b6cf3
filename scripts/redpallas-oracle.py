#!/usr/bin/env python3
"""An independent RedPallas for the tests, written here from the Zcash protocol specification
(§5.4.7 RedDSA, §5.4.9.6 Pallas), not from Satchel's Swift: affine Pallas arithmetic on Python
integers, BLAKE2b from hashlib, and the base G^Orchard as its published encoding (zebra's
SPENDAUTHSIG_BASEPOINT_BYTES, ZcashFoundation/zebra zebra-chain/src/primitives/redpallas/
constants.rs: hash_to_curve("z.cash:Orchard")("G")).

  redpallas-oracle.py verify   lines "SIG MSG VK" (hex) on stdin -> "ok" or "bad", a line each
  redpallas-oracle.py sign     lines "SK MSG" (hex) on stdin -> "VK SIG", a line each (T from os.urandom)
"""
import hashlib, os, sys

P = 0x40000000000000000000000000000000224698FC094CF91B992D30ED00000001
Q = 0x40000000000000000000000000000000224698FC0994A8DD8C46EB2100000001
BASE = bytes([99, 201, 117, 184, 132, 114, 26, 141, 12, 161, 112, 123, 227, 12, 127, 12,
              95, 68, 95, 62, 124, 24, 141, 59, 6, 214, 241, 40, 179, 35, 85, 183])


def sqrt(a):
    """A square root of a mod P (Tonelli-Shanks), or None."""
    a %= P
    if a == 0:
        return 0
    if pow(a, (P - 1) // 2, P) != 1:
        return None
    s, t = 0, P - 1
    while t % 2 == 0:
        s, t = s + 1, t // 2
    z = next(z for z in range(2, 1000) if pow(z, (P - 1) // 2, P) == P - 1)
    m, c, x, b = s, pow(z, t, P), pow(a, (t + 1) // 2, P), pow(a, t, P)
    while b != 1:
        i, b2 = 0, b
        while b2 != 1:
            b2, i = b2 * b2 % P, i + 1
        f = pow(c, 1 << (m - i - 1), P)
        m, c, x, b = i, f * f % P, x * f % P, b * f * f % P
    return x


def decode(data):
    """y^2 = x^3 + 5: x little-endian in 255 bits, y's parity in the top bit; (0,0) the identity."""
    if len(data) != 32:
        return False
    n = int.from_bytes(data, "little")
    x, sign = n & ((1 << 255) - 1), n >> 255
    if x >= P:
        return False
    if x == 0 and sign == 0:
        return None
    y = sqrt(x * x * x + 5)
    if y is None:
        return False
    if y % 2 != sign:
        y = P - y
    return (x, y)


def encode(point):
    if point is None:
        return bytes(32)
    x, y = point
    return (x | (y % 2) << 255).to_bytes(32, "little")


def add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    (x1, y1), (x2, y2) = a, b
    if x1 == x2:
        if (y1 + y2) % P == 0:
            return None
        lam = 3 * x1 * x1 * pow(2 * y1, -1, P) % P
    else:
        lam = (y2 - y1) * pow(x2 - x1, -1, P) % P
    x3 = (lam * lam - x1 - x2) % P
    return (x3, (lam * (x1 - x3) - y1) % P)


def mul(k, point):
    out = None
    while k:
        if k & 1:
            out = add(out, point)
        point, k = add(point, point), k >> 1
    return out


G = decode(BASE)
assert G and encode(G) == BASE and mul(Q, G) is None


def h_star(*parts):
    return int.from_bytes(hashlib.blake2b(b"".join(parts), digest_size=64, person=b"Zcash_RedPallasH").digest(), "little") % Q


def verify(sig, msg, vk_bytes):
    if len(sig) != 64:
        return False
    r, vk = decode(sig[:32]), decode(vk_bytes)
    s = int.from_bytes(sig[32:], "little")
    if r is False or vk is False or s >= Q:
        return False
    c = h_star(sig[:32], vk_bytes, msg)
    return mul(s, G) == add(r, mul(c, vk))


def sign(sk, msg):
    vk = encode(mul(sk, G))
    r = h_star(os.urandom(80), vk, msg)
    r_bar = encode(mul(r, G))
    return vk, r_bar + ((r + h_star(r_bar, vk, msg) * sk) % Q).to_bytes(32, "little")


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    for line in sys.stdin:
        fields = [bytes.fromhex(f) for f in line.split()]
        if not fields:
            continue
        if mode == "verify":
            print("ok" if verify(*fields) else "bad")
        elif mode == "sign":
            vk, sig = sign(int.from_bytes(fields[0], "little") % Q, fields[1])
            print(vk.hex(), sig.hex())
        else:
            sys.exit("usage: redpallas-oracle.py verify|sign < lines")


if __name__ == "__main__":
    main()
