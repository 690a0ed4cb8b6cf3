#!/usr/bin/env python3
"""An independent UR and BBQr codec for the tests, written here from the documents, not from
Satchel's Swift: BCR-2020-005 (UR), BCR-2020-012 (Bytewords), BCR-2024-001 (multipart fountain
codes) and Coinkite's BBQr.md. Python's own zlib, hashlib and base64 do the primitives.

  qr-oracle.py ur-decode            UR texts on stdin (any order) -> "TYPE CBORHEX"
  qr-oracle.py ur-encode TYPE N K   CBOR hex on stdin -> K parts, fragments of at most N bytes
  qr-oracle.py bbqr-join            BBQr parts on stdin -> "TYPECHAR HEX"
  qr-oracle.py bbqr-split T E N     hex on stdin -> parts of at most N characters (E: H, 2, Z)
  qr-oracle.py eth-unsigned CHAIN   a signed transaction's hex on stdin -> its unsigned bytes
  qr-oracle.py eth-request T CHAIN PATH FP ADDRESS [ORIGIN]
                                    sign-data hex on stdin -> ur:eth-sign-request (EIP-4527,
                                    Keystone's CDDL; CHAIN, FP, ADDRESS may be -; PATH may be m;
                                    ORIGIN text:… or bytes:HEX, the latter against the CDDL)
  qr-oracle.py eth-signatures       whole ur:eth-signature texts, one a line -> "REQUESTIDHEX SIGNATUREHEX" each
  qr-oracle.py eth-fixture FILE FP  eth-account's vectors -> "UR EXPECTED-SIGNATURE" per case: each
                                    case as the eth-sign-request a QR wallet would send
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
    if major == 5:
        pairs = {}
        for _ in range(n):
            key, at = cbor_read(data, at)
            pairs[key], at = cbor_read(data, at)
        return pairs, at
    if major == 6:
        item, at = cbor_read(data, at)
        return ("tag", n, item), at
    raise ValueError("unexpected CBOR major type %d" % major)


# --- RLP, for turning a signed transaction back into what was signed
def rlp_read(data, at):
    first = data[at]
    if first < 0x80:
        return data[at:at + 1], at + 1
    if first < 0xB8:
        return data[at + 1:at + 1 + first - 0x80], at + 1 + first - 0x80
    if first < 0xC0:
        size = first - 0xB7
        n = int.from_bytes(data[at + 1:at + 1 + size], "big")
        return data[at + 1 + size:at + 1 + size + n], at + 1 + size + n
    if first < 0xF8:
        n, start = first - 0xC0, at + 1
    else:
        size = first - 0xF7
        n, start = int.from_bytes(data[at + 1:at + 1 + size], "big"), at + 1 + size
    items, pos = [], start
    while pos < start + n:
        item, pos = rlp_read(data, pos)
        items.append(item)
    return items, pos


def rlp(item):
    if isinstance(item, bytes):
        if len(item) == 1 and item[0] < 0x80:
            return item
        return rlp_head(len(item), 0x80) + item
    body = b"".join(rlp(i) for i in item)
    return rlp_head(len(body), 0xC0) + body


def rlp_head(n, offset):
    if n < 56:
        return bytes([offset + n])
    size = (n.bit_length() + 7) // 8
    return bytes([offset + 55 + size]) + n.to_bytes(size, "big")


def eth_unsigned(signed, chain):
    if signed[0] < 0xC0:
        items, _ = rlp_read(signed, 1)
        return signed[:1] + rlp(items[:-3])
    items, _ = rlp_read(signed, 0)
    c = chain.to_bytes((chain.bit_length() + 7) // 8, "big")
    return rlp(items[:6] + [c, b"", b""])


def eth_fixture_case(vector, fingerprint):
    case, expect = vector["case"], vector["expect"]
    path = case["path"][2:].replace("h", "'")
    if "eth_tx" in case:
        signed = bytes.fromhex(expect["raw"][2:])
        kind, chain = (1 if signed[0] >= 0xC0 else 4), str(case["eth_tx"]["chainId"])
        data = eth_unsigned(signed, int(chain))
        v = int(expect["eth_v"])
        want = expect["r"][2:] + expect["s"][2:] + v.to_bytes(max(1, (v.bit_length() + 7) // 8), "big").hex()
    else:
        chain, want = "-", expect["signature"][2:]
        if "typed_data" in case:
            kind, data = 2, json.dumps(case["typed_data"]).encode()
        else:
            kind = 3
            data = bytes.fromhex(case["message_hex"][2:]) if "message_hex" in case else case["message"].encode()
    return eth_request(kind, chain, path, fingerprint, expect["from"][2:].lower(), data), want


def cbor_map(pairs):
    return cbor_head(5, len(pairs)) + b"".join(cbor_head(0, k) + v for k, v in pairs)


def eth_request(kind, chain, path, fingerprint, address, data, origin="-"):
    comps = b""
    steps = [] if path == "m" else path.split("/")
    for step in steps:
        hardened = step.endswith("'") or step.endswith("h")
        comps += cbor_head(0, int(step.rstrip("'h"))) + (b"\xf5" if hardened else b"\xf4")
    keypath = [(1, cbor_head(4, len(steps) * 2) + comps)]
    if fingerprint != "-":
        keypath.append((2, cbor_head(0, int(fingerprint, 16))))
    pairs = [(1, cbor_head(6, 37) + cbor_head(2, 16) + bytes(range(16))), (2, cbor_head(2, len(data)) + data), (3, cbor_head(0, kind))]
    if chain != "-":
        pairs.append((4, cbor_head(0, int(chain))))
    pairs.append((5, cbor_head(6, 304) + cbor_map(keypath)))
    if address != "-":
        a = bytes.fromhex(address)
        pairs.append((6, cbor_head(2, len(a)) + a))
    if origin.startswith("text:"):
        o = origin[5:].encode()
        pairs.append((7, cbor_head(3, len(o)) + o))
    elif origin.startswith("bytes:"):
        o = bytes.fromhex(origin[6:])
        pairs.append((7, cbor_head(2, len(o)) + o))
    return "ur:eth-sign-request/" + bytewords_minimal(cbor_map(pairs))


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
    elif command == "eth-unsigned":
        print(eth_unsigned(bytes.fromhex(stdin.strip()), int(args[0])).hex())
    elif command == "eth-request":
        print(eth_request(int(args[0]), args[1], args[2], args[3], args[4], bytes.fromhex(stdin.strip()), *args[5:6]))
    elif command == "eth-signatures":
        for line in stdin.splitlines():
            kind, message = ur_decode([line])
            assert kind == "eth-signature", kind
            fields, _ = cbor_read(message, 0)
            request = fields.get(1)
            print(request[2].hex() if request else "-", fields[2].hex())
    elif command == "eth-fixture":
        for line in open(args[0]):
            print(*eth_fixture_case(json.loads(line), args[1]))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
