"""A Python reference for ZIP-32 Sapling keys and addresses, written for Satchel's benchmark
from the Zcash protocol specification (§4.2.2, §5.4.9.3, §5.4.9.5) and ZIP-32, not from
Satchel's Swift code: plain integers, extended twisted-Edwards coordinates, hashlib's BLAKE2
and AES from the `cryptography` package (OpenSSL). bench/zcash_keys.py times it beside
Satchel in the same run and checks that both give the same keys and addresses.
"""
import hashlib

Q = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
R = 0x0E7DB4EA6533AFA906673B0101343B00A6682093CCC81082D0970E5ED6F72CB7
D = (-10240 * pow(10241, -1, Q)) % Q
URS = b"096b36a5804bfacef1691e173c366a47ff5ba84a44f26ddd7e8d9f79d5b42df0"
IDENTITY = (0, 1, 1, 0)


def add(p, q):
    x1, y1, z1, t1 = p
    x2, y2, z2, t2 = q
    a = (y1 - x1) * (y2 - x2) % Q
    b = (y1 + x1) * (y2 + x2) % Q
    c = 2 * D * t1 * t2 % Q
    d = 2 * z1 * z2 % Q
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % Q, g * h % Q, f * g % Q, e * h % Q)


def mul(k, p):
    acc = IDENTITY
    for bit in bin(k)[2:]:
        acc = add(acc, acc)
        if bit == "1":
            acc = add(acc, p)
    return acc


def encode(p):
    x, y, z, _ = p
    zi = pow(z, -1, Q)
    u, v = x * zi % Q, y * zi % Q
    return (v | (u & 1) << 255).to_bytes(32, "little")


def sqrt(a):
    """Tonelli-Shanks; q - 1 = 2^32 * t."""
    if a == 0:
        return 0
    if pow(a, (Q - 1) // 2, Q) != 1:
        return None
    s, t = 32, (Q - 1) >> 32
    z = 2
    while pow(z, (Q - 1) // 2, Q) == 1:
        z += 1
    m, c, x, b = s, pow(z, t, Q), pow(a, (t + 1) // 2, Q), pow(a, t, Q)
    while b != 1:
        i, b2 = 0, b
        while b2 != 1:
            b2 = b2 * b2 % Q
            i += 1
        e = pow(c, 1 << (m - i - 1), Q)
        x, c = x * e % Q, e * e % Q
        b, m = b * c % Q, i
    return x


def decode(data):
    n = int.from_bytes(data, "little")
    sign, v = n >> 255, n & ((1 << 255) - 1)
    if v >= Q:
        return None
    vv = v * v % Q
    u = sqrt((vv - 1) * pow(D * vv + 1, -1, Q) % Q)
    if u is None or (u == 0 and sign):
        return None
    if u & 1 != sign:
        u = Q - u
    return (u, v, 1, u * v % Q)


def is_identity(p):
    x, y, z, _ = p
    return x % Q == 0 and (y - z) % Q == 0


def group_hash(personal, message):
    p = decode(hashlib.blake2s(URS + message, person=personal, digest_size=32).digest())
    if p is None:
        return None
    p8 = mul(8, p)
    return None if is_identity(p8) else p8


def find_group_hash(personal, message):
    for i in range(256):
        p = group_hash(personal, message + bytes([i]))
        if p is not None:
            return p
    raise ValueError("no point")


G = find_group_hash(b"Zcash_G_", b"")
H = find_group_hash(b"Zcash_H_", b"")


def prf_expand(key, t):
    return hashlib.blake2b(key + t, person=b"Zcash_ExpandSeed", digest_size=64).digest()


def to_scalar(b):
    return int.from_bytes(b, "little") % R


class SpendingKey:
    def __init__(self, ask, nsk, ovk, dk, chain, tag, depth, index):
        self.ask, self.nsk, self.ovk, self.dk, self.chain = ask, nsk, ovk, dk, chain
        self.tag, self.depth, self.index = tag, depth, index

    @staticmethod
    def master(seed):
        i = hashlib.blake2b(seed, person=b"ZcashIP32Sapling", digest_size=64).digest()
        sk = i[:32]
        return SpendingKey(to_scalar(prf_expand(sk, b"\x00")), to_scalar(prf_expand(sk, b"\x01")),
                           prf_expand(sk, b"\x02")[:32], prf_expand(sk, b"\x10")[:32], i[32:], b"\0\0\0\0", 0, 0)

    def fvk(self):
        return encode(mul(self.ask, G)), encode(mul(self.nsk, H)), self.ovk, self.dk

    def hardened_child(self, index):
        ak, nk, ovk, _ = self.fvk()
        tag = hashlib.blake2b(ak + nk + ovk, person=b"ZcashSaplingFVFP", digest_size=32).digest()[:4]
        i = prf_expand(self.chain, b"\x11" + self.ask.to_bytes(32, "little") + self.nsk.to_bytes(32, "little")
                       + self.ovk + self.dk + index.to_bytes(4, "little"))
        il = i[:32]
        return SpendingKey((to_scalar(prf_expand(il, b"\x13")) + self.ask) % R, (to_scalar(prf_expand(il, b"\x14")) + self.nsk) % R,
                           prf_expand(il, b"\x15" + self.ovk)[:32], prf_expand(il, b"\x16" + self.dk)[:32], i[32:], tag,
                           self.depth + 1, index)


def account_ivk(seed, account=0):
    """m/32'/133'/account' and its incoming viewing key (ivk, dk)."""
    key = SpendingKey.master(seed)
    for index in (32, 133, account):
        key = key.hardened_child(index | 1 << 31)
    ak, nk, _, dk = key.fvk()
    h = bytearray(hashlib.blake2s(ak + nk, person=b"Zcashivk", digest_size=32).digest())
    h[31] &= 0x07
    return int.from_bytes(h, "little"), dk


def ff1_aes256(key, bits):
    """NIST SP 800-38G FF1 for radix 2, 88 bits, empty tweak."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    aes = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    p = aes.update(bytes([1, 2, 1, 0, 0, 2, 10, 44, 0, 0, 0, 88, 0, 0, 0, 0]))
    a = int("".join(map(str, bits[:44])), 2)
    b = int("".join(map(str, bits[44:])), 2)
    for rnd in range(10):
        block = bytes(9) + bytes([rnd]) + b.to_bytes(6, "big")
        r = aes.update(bytes(x ^ y for x, y in zip(p, block)))
        y = int.from_bytes(r[:12], "big")
        a, b = b, (a + y) % (1 << 44)
    return [int(c) for c in format(a, "044b") + format(b, "044b")]


def diversifier(dk, j):
    out = ff1_aes256(dk, [(j >> k) & 1 for k in range(88)])
    return bytes(sum(out[8 * i + k] << k for k in range(8)) for i in range(11))


CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def bech32(hrp, data):
    values, acc, bits = [], 0, 0
    for byte in data:
        acc, bits = acc << 8 | byte, bits + 8
        while bits >= 5:
            bits -= 5
            values.append(acc >> bits & 31)
    if bits:
        values.append(acc << (5 - bits) & 31)
    gen = [0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3]
    chk = 1
    for v in [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp] + values + [0] * 6:
        top = chk >> 25
        chk = (chk & 0x1FFFFFF) << 5 ^ v
        for i in range(5):
            if top >> i & 1:
                chk ^= gen[i]
    chk ^= 1
    return hrp + "1" + "".join(CHARSET[v] for v in values + [chk >> 5 * (5 - i) & 31 for i in range(6)])


def address(ivk, dk, start):
    """The first valid diversifier index at or after `start`, and its zs1 address."""
    j = start
    while True:
        d = diversifier(dk, j)
        g = group_hash(b"Zcash_gd", d)
        if g is not None:
            return j, bech32("zs", d + encode(mul(ivk, g)))
        j += 1


KDF_PERSONAL = b"Zcash_SaplingKDF"


def trial_decrypt(ivk, cmu, epk_bytes, ciphertext, after_canopy_grace=True):
    """ZIP-307 compact trial decryption with one IVK: the note's value, or None."""
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms
    epk = decode(epk_bytes)
    if epk is None:
        return None
    shared = encode(mul(ivk, mul(8, epk)))
    key = hashlib.blake2b(shared + epk_bytes, person=KDF_PERSONAL, digest_size=32).digest()
    stream = Cipher(algorithms.ChaCha20(key, (1).to_bytes(4, "little") + bytes(12)), mode=None).encryptor()
    p = stream.update(ciphertext[:52])
    if p[0] != (2 if after_canopy_grace else p[0]):
        return None
    d, value, rseed = p[1:12], int.from_bytes(p[12:20], "little"), p[20:52]
    g = group_hash(b"Zcash_gd", d)
    if g is None:
        return None
    esk = to_scalar(prf_expand(rseed, b"\x05"))
    if encode(mul(esk, g)) != epk_bytes:
        return None
    return value  # (the commitment check is left out: only a lucky lead byte reaches it)
