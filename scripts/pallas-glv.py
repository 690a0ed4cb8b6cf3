#!/usr/bin/env python3
"""Pallas's GLV endomorphism, derived from p and q alone (no constants copied from elsewhere).

Pallas is y^2 = x^3 + 5 over F_p, of prime order q, and both p and q are 1 mod 3, so
phi(x, y) = (zeta*x, y), with zeta a cube root of unity in F_p, is an endomorphism that acts as
[lambda] for a cube root of unity lambda in F_q. The script picks zeta, finds the lambda that
matches it on a point, takes a short basis of the lattice {(a, b): a + b*lambda = 0 mod q}
(extended Euclid stopped at sqrt(q), GLV 2001 section 4), and the fixed-point multipliers that
split a scalar k into k1 + k2*lambda with |k1|, |k2| < 2^128. It checks the split on random
scalars and prints the constants as Sources/Zcash/Pallas.swift holds them; PallasTests checks
the Swift file against this output's numbers and the split against plain multiplication.
"""
import random
import sys

p = 0x40000000000000000000000000000000224698FC094CF91B992D30ED00000001
q = 0x40000000000000000000000000000000224698FC0994A8DD8C46EB2100000001
SHIFT = 256


def cube_root_of_unity(m):
    for g in range(2, 100):
        z = pow(g, (m - 1) // 3, m)
        if z != 1:
            return z
    raise SystemExit("no cube root of unity found")


def sqrt(a):
    # p - 1 = 2^32 * t; Tonelli-Shanks with 5, a non-residue.
    if pow(a, (p - 1) // 2, p) != 1:
        return None
    s, t = 32, (p - 1) >> 32
    z = pow(5, t, p)
    x, b, m = pow(a, (t + 1) // 2, p), pow(a, t, p), s
    while b != 1:
        i, b2 = 0, b
        while b2 != 1:
            b2, i = b2 * b2 % p, i + 1
        c = pow(z, 1 << (m - i - 1), p)
        x, z, b, m = x * c % p, c * c % p, b * c * c % p, i
    return x


def add(P, Q):
    if P is None:
        return Q
    if Q is None:
        return P
    (x1, y1), (x2, y2) = P, Q
    if x1 == x2:
        if (y1 + y2) % p == 0:
            return None
        l = 3 * x1 * x1 * pow(2 * y1, -1, p) % p
    else:
        l = (y2 - y1) * pow(x2 - x1, -1, p) % p
    x3 = (l * l - x1 - x2) % p
    return x3, (l * (x1 - x3) - y1) % p


def mul(k, P):
    R = None
    for bit in bin(k)[2:]:
        R = add(R, R)
        if bit == "1":
            R = add(R, P)
    return R


def main():
    x = 1
    while (y := sqrt((x ** 3 + 5) % p)) is None:
        x += 1
    P = (x, y)
    zeta = cube_root_of_unity(p)
    lam = cube_root_of_unity(q)
    for candidate in (lam, lam * lam % q):
        if mul(candidate, P) == (zeta * x % p, y):
            lam = candidate
            break
    else:
        raise SystemExit("no lambda matches zeta")
    assert mul(lam, P) == (zeta * x % p, y)

    # Extended Euclid on (q, lambda): r_i = s_i*q + t_i*lambda; stop at the first r < sqrt(q).
    r0, r1, t0, t1 = q, lam, 0, 1
    while r1 * r1 >= q:
        k = r0 // r1
        r0, r1, t0, t1 = r1, r0 - k * r1, t1, t0 - k * t1
    # (r1, -t1) is short; the second vector is the shorter of (r0, -t0) and the next one.
    k = r0 // r1
    r2, t2 = r0 - k * r1, t0 - k * t1
    v1 = (r1, -t1)
    v2 = min((r0, -t0), (r2, -t2), key=lambda v: v[0] ** 2 + v[1] ** 2)
    for a, b in (v1, v2):
        assert (a + b * lam) % q == 0
    (a1, b1), (a2, b2) = v1, v2
    det = a1 * b2 - a2 * b1
    assert abs(det) == q
    # beta1 = round(b2*k/det), beta2 = round(-b1*k/det), as (k*g) >> SHIFT with the rounding
    # folded into g; k1 = k - beta1*a1 - beta2*a2, k2 = -beta1*b1 - beta2*b2.
    g1 = (b2 << SHIFT) // det
    g2 = (-b1 << SHIFT) // det

    def split(k):
        beta1 = (k * g1) >> SHIFT
        beta2 = (k * g2) >> SHIFT
        return k - beta1 * a1 - beta2 * a2, -beta1 * b1 - beta2 * b2

    rng = random.Random(1)
    worst = 0
    for k in [0, 1, q - 1, q // 2, q // 3, (q + 1) // 2] + [rng.randrange(q) for _ in range(200000)]:
        k1, k2 = split(k)
        assert (k1 + k2 * lam - k) % q == 0
        worst = max(worst, abs(k1), abs(k2))
    assert worst < 1 << 128, worst

    def limbs(n):
        return ", ".join("0x%016X" % ((n >> (64 * i)) & (2 ** 64 - 1)) for i in range(4))

    print("zeta (F_p) =", hex(zeta))
    print("lambda (F_q) =", hex(lam))
    print("a1 =", a1, "b1 =", b1)
    print("a2 =", a2, "b2 =", b2)
    print("g1 =", g1, "g2 =", g2)
    print("largest |k1|, |k2| over the samples: 2^%.3f" % (worst.bit_length() - 1 + (worst / 2 ** (worst.bit_length() - 1) - 1)))
    print("swift zeta:", limbs(zeta))
    print("swift lambda:", limbs(lam))
    print("swift |a1|,|b1|,|a2|,|b2|:", [hex(abs(v)) for v in (a1, b1, a2, b2)], "signs", [v < 0 for v in (a1, b1, a2, b2)])
    print("swift |g1|,|g2|:", [hex(abs(v)) for v in (g1, g2)], "signs", [v < 0 for v in (g1, g2)])
    print("swift g1 limbs:", limbs(g1), "g2 limbs:", limbs(g2))


if __name__ == "__main__":
    sys.exit(main())
