#!/usr/bin/env python3
"""Ethereum transactions, personal messages and EIP-712 typed data signed by eth-account (PyPI,
0.13.7), an implementation independent of Satchel's, for Satchel's sign-tx to match byte for byte
(both sign with RFC 6979 nonces and low S).

Run: python3 -m venv v && v/bin/pip install eth-account==0.13.7 &&
     v/bin/python scripts/eth-account-vectors.py [--seed N] [--count N] > vectors.jsonl
Each line: {"case": {...the sign-tx input record...}, "expect": {...what eth-account made...}}.
The first cases are fixed (every transaction type, contract creation, access lists, EIP-712's own
example, nested arrays, bytes, negative ints); then `--count` random ones from `--seed`.
The key is the phrase "abandon ×11 about" at m/44'/60'/0'/0/<index> (eth-account's own BIP32).
"""
import argparse, json, random, sys
from eth_account import Account
from eth_account.messages import encode_defunct, encode_typed_data
from eth_utils import to_checksum_address

Account.enable_unaudited_hdwallet_features()
PHRASE = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"


import functools


@functools.lru_cache(maxsize=None)
def account(index):
    return Account.from_mnemonic(PHRASE, account_path=f"m/44'/60'/0'/0/{index}")


def hx(b):
    return "0x" + bytes(b).hex()


def sign_tx(tx, index):
    acct = account(index)
    t = dict(tx)
    if "to" in t and t["to"] is None:
        del t["to"]
    for k, v in list(t.items()):
        if isinstance(v, str) and k not in ("to", "data"):
            t[k] = int(v, 0)
    # eth-account takes only checksummed addresses in typed transactions; the case keeps its own.
    if "to" in t:
        t["to"] = to_checksum_address(t["to"])
    if "accessList" in t:
        t["accessList"] = [dict(e, address=to_checksum_address(e["address"])) for e in t["accessList"]]
    s = acct.sign_transaction(t)
    return {"raw": hx(s.raw_transaction), "hash": hx(s.hash), "eth_v": str(s.v), "r": "0x%064x" % s.r, "s": "0x%064x" % s.s, "from": acct.address}


def sign_message(rec, index):
    acct = account(index)
    if "message" in rec:
        m = encode_defunct(text=rec["message"])
    else:
        m = encode_defunct(hexstr=rec["message_hex"])
    s = acct.sign_message(m)
    return {"hash": hx(s.message_hash), "signature": hx(s.signature), "from": acct.address}


def sign_typed(td, index):
    acct = account(index)
    s = acct.sign_message(encode_typed_data(full_message=td))
    return {"hash": hx(s.message_hash), "signature": hx(s.signature), "from": acct.address}


TO = "0xF0109fC8DF283027b6285cc889F5aA624EaC1F55"
MAIL = {
    "types": {
        "EIP712Domain": [{"name": "name", "type": "string"}, {"name": "version", "type": "string"},
                         {"name": "chainId", "type": "uint256"}, {"name": "verifyingContract", "type": "address"}],
        "Person": [{"name": "name", "type": "string"}, {"name": "wallet", "type": "address"}],
        "Mail": [{"name": "from", "type": "Person"}, {"name": "to", "type": "Person"}, {"name": "contents", "type": "string"}],
    },
    "primaryType": "Mail",
    "domain": {"name": "Ether Mail", "version": "1", "chainId": 1, "verifyingContract": "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"},
    "message": {"from": {"name": "Cow", "wallet": "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},
                "to": {"name": "Bob", "wallet": "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"}, "contents": "Hello, Bob!"},
}
NESTED = {
    "types": {
        "Person": [{"name": "name", "type": "string"}, {"name": "wallets", "type": "address[]"}],
        "Group": [{"name": "members", "type": "Person[]"}, {"name": "grid", "type": "int16[2][]"}, {"name": "tag", "type": "bytes"},
                  {"name": "code", "type": "bytes4"}, {"name": "ok", "type": "bool"}, {"name": "big", "type": "uint256"},
                  {"name": "neg", "type": "int256"}, {"name": "id", "type": "bytes32"}],
    },
    "primaryType": "Group",
    "domain": {"name": "Nested", "chainId": "0x89", "salt": "0x" + "ab" * 32},
    "message": {"members": [{"name": "Ann", "wallets": ["0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826", TO]}, {"name": "Ünï", "wallets": []}],
                "grid": [[1, -2], [-32768, 32767]], "tag": "0xdeadbeef00", "code": "0x010203", "ok": True,
                "big": "115792089237316195423570985008687907853269984665640564039457584007913129639935",
                "neg": "-57896044618658097711785492504343953926634992332820282019728792003956564819968", "id": "0x" + "11" * 32},
}

FIXED = [
    {"eth_tx": {"to": TO, "value": "1000000000", "gas": 21000, "gasPrice": "20000000000", "nonce": 0, "chainId": 1}},
    {"eth_tx": {"type": 2, "to": TO, "value": "0xde0b6b3a7640000", "gas": 21000, "maxFeePerGas": "30000000000",
                "maxPriorityFeePerGas": "1500000000", "nonce": 7, "chainId": 1, "data": "0x"}},
    {"eth_tx": {"to": TO, "value": 0, "gas": 60000, "gasPrice": 1, "nonce": 1, "chainId": 5, "type": 1,
                "accessList": [{"address": TO, "storageKeys": ["0x" + "00" * 31 + "01", "0x" + "ff" * 32]},
                               {"address": "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826", "storageKeys": []}]}},
    {"eth_tx": {"value": 0, "gas": 100000, "maxFeePerGas": 2000000000, "maxPriorityFeePerGas": 0, "nonce": 3, "chainId": 11155111,
                "data": "0x6080604052348015600f57600080fd5b50603f80601d6000396000f3fe6080604052600080fdfea164736f6c6343000800000a"}},
    {"eth_tx": {"to": TO, "value": "115792089237316195423570985008687907853269984665640564039457584007913129639935", "gas": 21000,
                "gasPrice": 0, "nonce": "18446744073709551614", "chainId": 9223372036854775771}},
    {"message": "Hello, Satchel"},
    {"message": ""},
    {"message": "ünïcödé ✓ — 你好"},
    {"message_hex": "0x00ff10"},
    {"typed_data": MAIL},
    {"typed_data": NESTED},
]


def random_case(rng):
    kind = rng.choice(["tx0", "tx1", "tx2", "msg", "msghex", "typed"])
    def num(bits):
        v = rng.getrandbits(rng.randint(1, bits))
        return rng.choice([v, str(v), hex(v)]) if v < 2**53 else rng.choice([str(v), hex(v)])
    def addr():
        a = "0x" + rng.randbytes(20).hex()
        return to_checksum_address(a) if rng.random() < 0.5 else a
    if kind.startswith("tx"):
        tx = {"nonce": num(63), "gas": num(63), "value": num(256), "chainId": rng.randint(1, 2**40),
              "data": "0x" + rng.randbytes(rng.choice([0, 1, 4, 55, 56, 300])).hex()}
        if rng.random() < 0.9:
            tx["to"] = addr()
        if kind == "tx2":
            fee = rng.getrandbits(rng.randint(1, 128))
            tx.update(type=2, maxFeePerGas=str(fee), maxPriorityFeePerGas=str(rng.randint(0, fee)))
        else:
            tx["gasPrice"] = num(128)
        if kind != "tx0":
            tx["type"] = tx.get("type", 1)
            tx["accessList"] = [{"address": addr(), "storageKeys": ["0x" + rng.randbytes(32).hex() for _ in range(rng.randint(0, 3))]}
                                for _ in range(rng.randint(0, 3))]
        return {"eth_tx": tx}
    if kind == "msg":
        return {"message": "".join(rng.choice("abcxyz ÄΩ€\n\t{}\"\\") for _ in range(rng.randint(0, 80)))}
    if kind == "msghex":
        return {"message_hex": "0x" + rng.randbytes(rng.randint(0, 200)).hex()}
    bits = rng.choice([8, 64, 256])
    return {"typed_data": {
        "types": {"EIP712Domain": [{"name": "name", "type": "string"}, {"name": "chainId", "type": "uint256"}],
                  "Item": [{"name": "n", "type": f"uint{bits}"}, {"name": "i", "type": f"int{bits}"}, {"name": "b", "type": "bytes"},
                           {"name": "f", "type": "bytes%d" % rng.randint(1, 32)}, {"name": "a", "type": "address[]"}, {"name": "s", "type": "string"}],
                  "Order": [{"name": "items", "type": "Item[]"}, {"name": "owner", "type": "address"}]},
        "primaryType": "Order",
        "domain": {"name": "Random %d" % rng.randint(0, 1000), "chainId": rng.randint(1, 2**32)},
        "message": {"items": [{"n": str(rng.getrandbits(bits)), "i": str(rng.randint(-2**(bits - 1), 2**(bits - 1) - 1)),
                               "b": "0x" + rng.randbytes(rng.randint(0, 70)).hex(), "f": "0x" + rng.randbytes(1).hex(),
                               "a": [addr() for _ in range(rng.randint(0, 3))], "s": "item %d" % k} for k in range(rng.randint(0, 3))],
                    "owner": addr()}}}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=60)
    ap.add_argument("--random-only", action="store_true")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    cases = ([] if a.random_only else FIXED) + [random_case(rng) for _ in range(a.count)]
    for n, case in enumerate(cases):
        index = n % 3
        case = dict(case, path=f"m/44h/60h/0h/0/{index}")
        if "eth_tx" in case:
            expect = sign_tx(case["eth_tx"], index)
        elif "typed_data" in case:
            expect = sign_typed(case["typed_data"], index)
        else:
            expect = sign_message(case, index)
        sys.stdout.write(json.dumps({"case": case, "expect": expect}, ensure_ascii=False) + "\n")


main()
