#!/usr/bin/env python3
"""Writes the fuzz targets' seed inputs into Fuzz/corpus/<target>/seed-* from Tests/Fixtures.

Run once to start a corpus; `make fuzz` grows it and merges what adds coverage back into
Fuzz/corpus (committed). Seeds are small: a corpus is for coverage, not for data.
Usage: Fuzz/make-seeds.py [REPO]  (default: the repository this script is in)
"""
import base64, binascii, hashlib, json, os, re, sys

repo = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
fixtures = os.path.join(repo, "Tests", "Fixtures")
corpus = os.path.join(repo, "Fuzz", "corpus")
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def path(*parts):
    return os.path.join(fixtures, *parts)


def text(*parts):
    with open(path(*parts), encoding="utf-8") as f:
        return f.read()


def lines(*parts, limit=None):
    out = [json.loads(l) for l in text(*parts).splitlines() if l.strip()]
    return out[:limit] if limit else out


def seed(target, data, name=None):
    if isinstance(data, str):
        data = data.encode()
    d = os.path.join(corpus, target)
    os.makedirs(d, exist_ok=True)
    name = name or "seed-" + hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def b58decode(s):
    n = 0
    for c in s:
        n = n * 58 + B58.index(c)
    raw = n.to_bytes((n.bit_length() + 7) // 8, "big") if n else b""
    return b"\0" * (len(s) - len(s.lstrip("1"))) + raw


def strings(obj):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from strings(v)


def vector_strings(name, pattern, limit):
    found = [s for s in strings(json.loads(text("vectors", name))) if re.fullmatch(pattern, s)]
    return list(dict.fromkeys(found))[:limit]


# JSON Lines: records as tools read and write them, phrases, a long line, CRLF.
records = [l for l in text("ethereum", "eth-account-vectors.jsonl").splitlines()[:3]]
for target in ("line-reader", "records", "json"):
    seed(target, "\n".join(records) + "\n")
    seed(target, '{"type":"error","code":"x","line":3}\r\n\n \t\n{"a":[1,2.5e3,null,true],"b":"\\u00e9\\ud83d\\ude00"}')
seed("records", "\x01abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about\n" + "x" * 300 + "\n")
seed("line-reader", "a\r\n" + "b" * 70 + "\n" + "c" * 64 + "\r\n" + "d" * 65)

# Encodings
keys = vector_strings("bip32.json", "[xt](pub|prv)[1-9A-HJ-NP-Za-km-z]{100,112}", 12)
slip = vector_strings("slip132.json", "[a-zA-Z]{4}[1-9A-HJ-NP-Za-km-z]{100,112}", 10)
for k in keys[:4] + slip[:3]:
    seed("base58", k)
    seed("extended-key", b58decode(k)[:-4])
    seed("extended-key", k)
for k in keys + slip:
    payload = b58decode(k)[:-4]
    seed("slip132", bytes([0x30]) + payload[4:])
for a in vector_strings("bech32.json", "[A-Za-z0-9]{1,83}1[A-Za-z0-9]{6,87}", 20):
    seed("bech32", a)
for a in vector_strings("cashaddr.json", "([a-z]+:)?[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{30,120}", 10):
    seed("cashaddr", a)
seed("hex-base64", "00ff10Ab")
seed("hex-base64", "cHNidP8BAHUCAAAAAQ==")
seed("base58-monero", "41dyYY6q84mEYm26DYivzTHUazsh1wWGMDzRvDMm7oQKXyh1LTmQak2MfGoq13EE5xKJTC2Likxp3Vkty1naikJaJdfVHhv")

# Keys and paths
for language, cases in json.loads(text("vectors", "bip39-trezor.json"))["vectors"].items():
    for case in cases[:2]:
        seed("phrase", b"\0" + case["mnemonic"].encode())
seed("phrase", bytes([0x01]) + bytes(range(32)))
seed("phrase", bytes([0x23]) + bytes(range(32)))
for p in vector_strings("bip44-49-84-86.json", "m(/[0-9]+'?)+", 6) + ["m/0/1-5", "m/84h/0h/0h/0/0-19", "m/2147483647'"]:
    seed("derivation-path", p)
for d in ("wpkh([73c5da0a/84'/0'/0']xpub6CatWdiZiodmUeTDp8LT5or8nmbKNcuyvz7WyksVFkKB4RHwCD3XyuvPEbvqAQY3rAPshWcMLoP2fMFMKHPJ4ZeZXYVUhLv1VMrjPC7PW6V/0/*)#wc3n3van",
          "sh(wpkh([73c5da0a/49'/0'/0']xpub6CatWdiZiodmUeTDp8LT5or8nmbKNcuyvz7WyksVFkKB4RHwCD3XyuvPEbvqAQY3rAPshWcMLoP2fMFMKHPJ4ZeZXYVUhLv1VMrjPC7PW6V/1/*))"):
    seed("descriptor", d)
seed("wif", b58decode("5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ")[:-4])

# Zcash
for kind, name in ((0, "unified_address.json"), (1, "unified_full_viewing_keys.json"), (2, "unified_incoming_viewing_keys.json")):
    for u in vector_strings(os.path.join("zcash", name), "u(view|ivk)?(test)?1[a-z0-9]{50,}", 3):
        seed("unified", bytes([0x08 | kind | (4 if "test1" in u[:10] else 0)]) + u.encode())
for h in vector_strings(os.path.join("zcash", "f4jumble.json"), "[0-9a-f]{96,400}", 4):
    seed("f4jumble", binascii.unhexlify(h))
for tx in lines("fixtures", "zcash-sapling", "transactions.jsonl", limit=40):
    raw = binascii.unhexlify(tx["raw_tx"])
    if len(raw) < 20000 and len(os.listdir(os.path.join(corpus, "zcash-v5-tx")) if os.path.isdir(os.path.join(corpus, "zcash-v5-tx")) else []) < 6:
        seed("zcash-v5-tx", raw)
for name in ("trustwallet_serde_v5_transparent", "keystone_fw_orchard_to_transparent", "keystone_parse_orchard_to_sapling"):
    with open(path("vectors", "zcash", "pczt", name + ".pczt"), "rb") as f:
        seed("pczt", f.read())
# zcash-ur: a selector byte (even: zcash-pczt, odd: zcash-accounts), then the item's CBOR.
for name in ("keystone_fw_orchard_to_transparent", "keystone_pczt_ext_transparent_to_orchard"):
    with open(path("vectors", "zcash", "pczt", name + ".pczt"), "rb") as f:
        raw = f.read()
    seed("zcash-ur", bytes([0, 0xA1, 0x01, 0x59, len(raw) >> 8, len(raw) & 0xFF]) + raw)
# Keystone's tests' zcash-accounts (a device version in the second), and one with two accounts.
for h in ("a20150" + "d1" * 16 + "0280", "a30150" + "d1" * 16 + "02800365312e322e33",
          "a2015820" + "42" * 32 + "0282d9c033a30169" + b"uview1abc".hex() + "02000367" + b"Satchel".hex()
          + "d9c033a20169" + b"uview1def".hex() + "0205"):
    seed("zcash-ur", bytes([1]) + binascii.unhexlify(h))
with open(path("fixtures", "zcash-sapling", "compact_blocks.pb"), "rb") as f:
    pb = f.read()
# The file is length-delimited CompactBlocks (a varint before each): the first few, each alone.
at, n = 0, 0
while at < len(pb) and n < 4:
    length, shift = 0, 0
    while True:
        b = pb[at]; at += 1
        length |= (b & 0x7F) << shift; shift += 7
        if b < 0x80:
            break
    seed("zcash-compact-block", pb[at:at + length])
    at += length; n += 1

# Monero
for b in lines("fixtures", "monero-regtest", "blocks.jsonl", limit=3):
    seed("monero-block", binascii.unhexlify(b["blob"]))
for t in lines("fixtures", "monero-regtest", "txs.jsonl", limit=4):
    seed("monero-tx", binascii.unhexlify(t["hex"]))
header = bytes([0x01, 0x11, 0x01, 0x01, 0x01, 0x01, 0x02, 0x01, 0x01])
seed("epee", header + bytes([0x08, 0x06]) + b"status" + bytes([0x0A, 0x08]) + b"OK" + bytes([0x06]) + b"blocks" + bytes([0x8C, 0x04, 0x04, 0x05]) + b"block" + bytes([0x0A, 0x0C]) + b"abc")

# Bitcoin family: Litecoin regtest blocks (MWEB among them), their transactions, PSBTs.
for name in ("block432.hex", "block434.hex", "block436.hex"):
    raw = binascii.unhexlify(text("litecoin-regtest", name).strip())
    seed("bitcoin-block", bytes([0x01]) + raw)
# BIP352: the vectors' first address, and an input of each kind (the P2WPKH key is G).
seed("silent-payment", bytes([0x00]) + b"sp1qqgste7k9hx0qftg6qmwlkqtwuy6cycyavzmzj85c6qdfhjdpdjtdgqjuexzk6murw56suy3e0rd2cgqvycxttddwsvgxe2usfpxumr70xc9pkqwv")
_g = binascii.unhexlify("0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798")
seed("silent-payment", bytes([0x01, 22, 0, 1]) + bytes([0x00, 0x14]) + bytes(20) + bytes([33]) + _g
     + bytes([34, 0, 1]) + bytes([0x51, 0x20]) + _g[1:] + bytes([64]) + bytes(64))
# Undo data: one transaction, one P2PKH coin at height 10 (a dummy after the height code).
_block = "6e1f" * 16
_tweak = ('{"type":"sp_tweak","v":1,"height":7,"block":"%s","txid":"%s","tweak":"0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798","outputs":[{"vout":0,"key":"%s","value":"1000"},{"vout":2,"key":"%s","value":"5"}]}'
          % (_block, "ab" * 32, "11" * 32, "22" * 32))
seed("tweak-records", '{"type":"sp_block","v":1,"height":7,"hash":"%s","prev":"%s","tweaks":1}\n%s' % (_block, "00" * 32, _tweak))
seed("tweak-records", '{"type":"sp_block","v":1,"height":7,"hash":"%s","prev":"%s","tweaks":0}' % (_block, "00" * 32))
seed("bitcoin-undo", bytes([0x02]) + bytes([1, 1, 20, 0, 5, 0]) + bytes(20))
seed("bitcoin-undo", bytes([0x00]) + bytes.fromhex("f9beb4d9") + (27).to_bytes(4, "little") + bytes([1, 1, 20, 0, 5, 0]) + bytes(21) + bytes(32))
seed("bitcoin-tx", bytes([0x00]) + binascii.unhexlify(json.loads(text("psbt", "bip174-roles.json"))["extracted_hex"]))
for line in text("psbt", "rpc_psbt-valid.txt").splitlines()[:10]:
    if line.strip():
        seed("psbt", base64.b64decode(line.strip()))
# BIP375: PSBTs paying silent payment addresses (shares, proofs, computed scripts).
bip375 = json.loads(text("vectors", "bip352", "bip375_test_vectors.json"))
for case in bip375["valid"] + bip375["invalid"]:
    seed("psbt", base64.b64decode(case["psbt"]))
roles = json.loads(text("psbt", "bip174-roles.json"))
for key in ("updated_with_sighash_all", "signed_by_signer_1", "combined"):
    seed("psbt", base64.b64decode(roles[key]))

# Ethereum: RLP of the vectors' raw transactions, and their records.
for v in lines("ethereum", "eth-account-vectors.jsonl", limit=12):
    case, expect = v["case"], v["expect"]
    raw = expect.get("raw")
    if raw:
        r = binascii.unhexlify(raw[2:])
        seed("rlp", r[1:] if r[0] < 0x80 else r)
    if "eth_tx" in case:
        seed("eth-tx", json.dumps(case["eth_tx"]))
    if "typed_data" in case:
        seed("eip712", json.dumps(case["typed_data"]))

# A card's answers
for step in lines("fixtures", "keycard", "transcript.jsonl", limit=12):
    r = binascii.unhexlify(step["response_hex"])
    seed("apdu", r)
    seed("tlv", r[:-2])

# A key-store file, written by the format's rules (docs/keystore-format.md) with a made-up
# sealed part: the parser reads up to the passphrase check.
meta = json.dumps({"birthdays": {"monero": 3000000}, "created": 1700000000, "kind": "bip39", "name": "w",
                   "passphrase_protected": False, "language": "english"}, sort_keys=True, separators=(",", ":")).encode()
entry = b"SATCHELK" + bytes([1, 2, 0, 0]) + (3).to_bytes(8, "little") + (1 << 26).to_bytes(8, "little") \
    + bytes(16) + bytes(24) + bytes(16) + len(meta).to_bytes(4, "little") + meta + (48).to_bytes(4, "little") + bytes(48)
seed("keystore-file", entry)
seed("keystore-file", meta)
print("seeds written under", corpus)

# QR transports: UR texts (single and multipart), CBOR and registry items, BBQr parts, the
# unsigned transactions of eth-sign-requests.
ur = json.loads(text("vectors", "ur", "ur.json"))
seed("ur", ur["single_part"]["expected"])
seed("ur", "\n".join(ur["ur_encoder"]["expected_parts"][:12]))
seed("ur", "\n".join(p.upper() for p in ur["ur_encoder"]["expected_parts"][8:20]))
registry = json.loads(text("vectors", "ur", "registry.json"))
kinds = ["crypto-psbt", "psbt", "crypto-hdkey", "hdkey", "crypto-output", "output-descriptor", "crypto-account", "account-descriptor"]
for group in ("psbt", "crypto_hdkey", "hdkey_v2", "crypto_output", "output_descriptor_v3", "crypto_account", "account_descriptor"):
    for v in registry[group]:
        body = binascii.unhexlify(v["cbor_hex"])
        seed("cbor", body)
        seed("ur-registry", bytes([kinds.index(v["type"])]) + body)
        if "ur" in v:
            seed("ur", v["ur"])
seed("bbqr", "B$HP0200" + "70736274FF0100" + "\nB$HP0201" + "0A0B0C")
seed("bbqr", "B$2U0100" + base64.b32encode(b"Satchel").decode().rstrip("="))
import importlib.util
spec = importlib.util.spec_from_file_location("qr_oracle", os.path.join(repo, "scripts", "qr-oracle.py"))
oracle = importlib.util.module_from_spec(spec)
spec.loader.exec_module(oracle)
for vector in lines("ethereum", "eth-account-vectors.jsonl", limit=12):
    raw = vector["expect"].get("raw")
    if raw:
        seed("eth-unsigned", oracle.eth_unsigned(binascii.unhexlify(raw[2:]), vector["case"]["eth_tx"]["chainId"]))
seed("eth-unsigned", binascii.unhexlify("ec098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a764000080018080"))
