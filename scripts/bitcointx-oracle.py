#!/usr/bin/env python3
"""Bitcoin signing references from python-bitcointx (PyPI, 1.1.5; a library that follows Bitcoin
Core's algorithms, which Satchel does not use), for Satchel's tests to match:

  sighash  random transactions and their legacy, BIP143 and BIP341 (key path) sighashes, every
           sighash type, ANYONECANPAY too, SINGLE only where the input has an output of its index
           (the one case each algorithm leaves undefined or refuses)
  low-r    ECDSA signatures ground for low R as Bitcoin Core grinds them (RFC 6979, then a 32-bit
           counter as extra entropy), and the same without grinding

Run: python3 -m venv v && v/bin/pip install python-bitcointx==1.1.5 &&
     v/bin/python scripts/bitcointx-oracle.py sighash --seed 1 --count 400 > bitcointx-sighashes.jsonl
     v/bin/python scripts/bitcointx-oracle.py low-r --seed 1 --count 300 > bitcointx-low-r-signatures.jsonl
"""
import argparse, json, random, sys
from bitcointx.core import CMutableTransaction, CMutableTxIn, CMutableTxOut, COutPoint, CTxOut
from bitcointx.core.key import CKey
from bitcointx.core.script import CScript, SignatureHash, SignatureHashSchnorr, SIGVERSION_BASE, SIGVERSION_WITNESS_V0, SIGVERSION_TAPROOT, SIGHASH_Type


def sighash_row(rng):
    n_in, n_out = rng.randint(1, 4), rng.randint(0, 4)
    vin = [CMutableTxIn(COutPoint(rng.randbytes(32), rng.randint(0, 5)), CScript(), rng.choice([0xFFFFFFFF, 0xFFFFFFFD, rng.getrandbits(32)])) for _ in range(n_in)]
    vout = [CMutableTxOut(rng.randint(0, 21_000_000 * 10**8), CScript(rng.randbytes(rng.choice([22, 23, 25, 34])))) for _ in range(n_out)]
    # Lock times below 2^31: python-bitcointx packs BIP143's as a signed int.
    tx = CMutableTransaction(vin, vout, rng.getrandbits(31), rng.choice([1, 2]))
    spent = [CTxOut(rng.randint(0, 21_000_000 * 10**8), CScript(b"\x51\x20" + rng.randbytes(32))) for _ in range(n_in)]
    index = rng.randrange(n_in)
    base = rng.choice([1, 2, 3] if index < n_out else [1, 2])
    htype = base | rng.choice([0, 0x80])
    script_code = CScript(b"\x76\xa9\x14" + rng.randbytes(20) + b"\x88\xac")
    amount = spent[index].nValue
    row = {
        "tx": tx.serialize().hex(), "input": index, "type": htype, "script_code": bytes(script_code).hex(), "amount": amount,
        "prevouts": [{"value": o.nValue, "script": bytes(o.scriptPubKey).hex()} for o in spent],
        "legacy": SignatureHash(script_code, tx, index, SIGHASH_Type(htype), sigversion=SIGVERSION_BASE).hex(),
        "segwit_v0": SignatureHash(script_code, tx, index, SIGHASH_Type(htype), amount=amount, sigversion=SIGVERSION_WITNESS_V0).hex(),
        "taproot": SignatureHashSchnorr(tx, index, spent, hashtype=SIGHASH_Type(htype), sigversion=SIGVERSION_TAPROOT).hex(),
    }
    if htype == 1 and rng.random() < 0.3:
        row["taproot_default"] = SignatureHashSchnorr(tx, index, spent, hashtype=None, sigversion=SIGVERSION_TAPROOT).hex()
    return row


def low_r_row(rng):
    secret, digest = rng.randbytes(32), rng.randbytes(32)
    key = CKey(secret)
    return {"private_key": secret.hex(), "hash": digest.hex(), "der": key.sign(digest).hex(),
            "der_without_grinding": key.sign(digest, _ecdsa_sig_grind_low_r=False).hex()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=["sighash", "low-r"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=300)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    make = sighash_row if a.kind == "sighash" else low_r_row
    for _ in range(a.count):
        sys.stdout.write(json.dumps(make(rng)) + "\n")


main()
