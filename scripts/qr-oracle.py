#!/usr/bin/env python3
"""An independent UR and BBQr codec for the tests, written here from the documents, not from
Satchel's Swift: BCR-2020-005 (UR), BCR-2020-012 (Bytewords), BCR-2024-001 (multipart fountain
codes) and Coinkite's BBQr.md. Python's own zlib, hashlib and base64 do the primitives.

  qr-oracle.py ur-decode            UR texts on stdin (any order) -> "TYPE CBORHEX"
  qr-oracle.py ur-encode TYPE N K   CBOR hex on stdin -> K parts, fragments of at most N bytes
  qr-oracle.py bbqr-join            BBQr parts on stdin -> "TYPECHAR HEX"
  qr-oracle.py bbqr-split T E N     hex on stdin -> parts of at most N characters (E: H, 2, Z)
"""
import base64
import hashlib
import json
import os
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
WORDS = json.load(open(os.path.join(HERE, "..", "Tests", "Fixtures", "vectors", "ur", "bytewords.json")))["wordlist"]
PAIRS = {w[0] + w[-1]: i for i, w in enumerate(WORDS)}


def crc(data):
    return zlib.crc32(data) & 0xFFFFFFFF


def bytewords_minimal(data):
    body = data + struct.pack(">I", crc(data))
    return "".join(WORDS[b][0] + WORDS[b][-1] for b in body)


def from_bytewords_minimal(text):
    text = text.lower()
    raw = bytes(PAIRS[text[i:i + 2]] for i in range(0, len(text), 2))
    body, check = raw[:-4], raw[-4:]
    if struct.pack(">I", crc(body)) != check:
        raise ValueError("bytewords checksum")
    return body


# --- minimal CBOR, enough for fountain parts and byte strings
def cbor_head(major, n):
    if n < 24:
        return bytes([major << 5 | n])
    for info, size in ((24, 1), (25, 2), (26, 4), (27, 8)):
        if n < 1 << (8 * size):
            return bytes([major << 5 | info]) + n.to_bytes(size, "big")


def cbor_read(data, at):
    first = data[at]
    major, info = first >> 5, first & 31
    at += 1
    if info < 24:
        n = info
    else:
        size = {24: 1, 25: 2, 26: 4, 27: 8}[info]
        n = int.from_bytes(data[at:at + size], "big")
        at += size
    if major == 0:
        return n, at
    if major == 2:
        return data[at:at + n], at + n
    if major == 4:
        items = []
        for _ in range(n):
            item, at = cbor_read(data, at)
            items.append(item)
        return items, at
    raise ValueError("unexpected CBOR major type %d" % major)


# --- Xoshiro256** and the fountain code's choices
class Xoshiro:
    def __init__(self, seed):
        d = hashlib.sha256(seed).digest()
        self.s = [int.from_bytes(d[i:i + 8], "big") for i in range(0, 32, 8)]

    def next(self):
        s, m = self.s, (1 << 64) - 1
        rotl = lambda x, k: ((x << k) | (x >> (64 - k))) & m
        result = (rotl((s[1] * 5) & m, 7) * 9) & m
        t = (s[1] << 17) & m
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return result

    def double(self):
        return float(self.next()) / (float((1 << 64) - 1) + 1.0)

    def integer(self, low, high):
        return int(self.double() * (high - low + 1)) + low


def alias_tables(weights):
    n = len(weights)
    total = sum(weights)
    p = [w * n / total for w in weights]
    small = [i for i in range(n - 1, -1, -1) if p[i] < 1]
    large = [i for i in range(n - 1, -1, -1) if p[i] >= 1]
    prob, alias = [0.0] * n, [0] * n
    while small and large:
        a, g = small.pop(), large.pop()
        prob[a], alias[a] = p[a], g
        p[g] += p[a] - 1
        (small if p[g] < 1 else large).append(g)
    for i in large + small:
        prob[i] = 1.0
    return prob, alias


def fragment_indexes(seq, seq_len, checksum):
    if seq <= seq_len:
        return [seq - 1]
    rng = Xoshiro(struct.pack(">II", seq, checksum))
    prob, alias = alias_tables([1.0 / i for i in range(1, seq_len + 1)])
    r1, r2 = rng.double(), rng.double()
    i = int(seq_len * r1)
    degree = (i if r2 < prob[i] else alias[i]) + 1
    remaining, order = list(range(seq_len)), []
    while remaining:
        order.append(remaining.pop(rng.integer(0, len(remaining) - 1)))
    return sorted(order[:degree])


def ur_decode(lines):
    known, mixed, meta, kind = {}, [], None, None
    for line in lines:
        text = line.strip().lower()
        if not text:
            continue
        assert text.startswith("ur:")
        parts = text[3:].split("/")
        kind = parts[0]
        if len(parts) == 2:
            return kind, from_bytewords_minimal(parts[1])
        (seq, seq_len, length, checksum, data), _ = cbor_read(from_bytewords_minimal(parts[2]), 0)
        meta = (seq_len, length, checksum)
        mixed.append((set(fragment_indexes(seq, seq_len, checksum)), bytes(data)))
        # Reduce until nothing changes: XOR out every known fragment.
        changed = True
        while changed:
            changed = False
            for entry in list(mixed):
                idx, payload = entry
                for k in list(idx):
                    if k in known and len(idx) > 1:
                        payload = bytes(a ^ b for a, b in zip(payload, known[k]))
                        idx = idx - {k}
                if len(idx) == 1:
                    known.setdefault(next(iter(idx)), payload)
                    mixed.remove(entry)
                    changed = True
                elif idx != entry[0]:
                    mixed[mixed.index(entry)] = (idx, payload)
                    changed = True
        if len(known) == seq_len:
            message = b"".join(known[i] for i in range(seq_len))[:length]
            assert crc(message) == checksum, "message checksum"
            return kind, message
    raise SystemExit("incomplete")


def ur_encode(kind, message, max_len, count):
    # Fragment length: the fewest fragments of at most max_len bytes (BCR-2024-001), minimum 10.
    most = max(1, len(message) // 10)
    for n in range(1, most + 1):
        frag = -(-len(message) // n)
        if frag <= max_len:
            break
    padded = message + b"\0" * (-len(message) % frag)
    fragments = [padded[i:i + frag] for i in range(0, len(padded), frag)]
    if len(fragments) == 1:
        return ["ur:%s/%s" % (kind, bytewords_minimal(message))]
    checksum, out = crc(message), []
    for seq in range(1, count + 1):
        data = bytes(frag)
        for i in fragment_indexes(seq, len(fragments), checksum):
            data = bytes(a ^ b for a, b in zip(data, fragments[i]))
        body = cbor_head(4, 5) + cbor_head(0, seq) + cbor_head(0, len(fragments)) + cbor_head(0, len(message)) \
            + cbor_head(0, checksum) + cbor_head(2, len(data)) + data
        out.append("ur:%s/%d-%d/%s" % (kind, seq, len(fragments), bytewords_minimal(body)))
    return out


def bbqr_join(lines):
    parts = {}
    for line in lines:
        line = line.strip()
        if not line:
            continue
        assert line.startswith("B$")
        encoding, kind, total, index = line[2], line[3], int(line[4:6], 36), int(line[6:8], 36)
        parts[index] = line[8:]
    assert sorted(parts) == list(range(total)), "missing parts"
    if encoding == "H":
        data = bytes.fromhex("".join(parts[i] for i in range(total)))
    else:
        data = b"".join(base64.b32decode(p + "=" * (-len(p) % 8)) for p in (parts[i] for i in range(total)))
        if encoding == "Z":
            data = zlib.decompress(data, wbits=-10)
    return kind, data


def bbqr_split(kind, encoding, data, max_chars):
    if encoding == "Z":
        packer = zlib.compressobj(9, zlib.DEFLATED, -10)
        data = packer.compress(data) + packer.flush()
    text = data.hex().upper() if encoding == "H" else base64.b32encode(data).decode().rstrip("=")
    unit = 2 if encoding == "H" else 8
    room = (max_chars - 8) // unit * unit
    count = -(-len(text) // room)
    return ["B$%s%s%s%s%s" % (encoding, kind, base36(count), base36(i), text[i * room:(i + 1) * room]) for i in range(count)]


def base36(n):
    digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return digits[n // 36] + digits[n % 36]


def main():
    command, args = sys.argv[1], sys.argv[2:]
    stdin = sys.stdin.read()
    if command == "ur-decode":
        kind, message = ur_decode(stdin.splitlines())
        print(kind, message.hex())
    elif command == "ur-encode":
        print("\n".join(ur_encode(args[0], bytes.fromhex(stdin.strip()), int(args[1]), int(args[2]))))
    elif command == "bbqr-join":
        kind, data = bbqr_join(stdin.splitlines())
        print(kind, data.hex())
    elif command == "bbqr-split":
        print("\n".join(bbqr_split(args[0], args[1], bytes.fromhex(stdin.strip()), int(args[2]))))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
