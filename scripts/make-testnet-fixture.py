#!/usr/bin/env python3
"""Writes Tests/Fixtures/testnet/testnet-derivations.json with embit (PyPI, 0.8.0), a
library Satchel does not use: account keys (tpub/upub/vpub, tprv), receive and change
addresses (m…/n…, 2…, tb1q/bcrt1q, tb1p/bcrt1p) and WIFs on test, signet and regtest.
Run: python3 -m venv v && v/bin/pip install embit==0.8.0 && v/bin/python scripts/make-testnet-fixture.py
"""
import json, sys
from embit import bip32, bip39, script
from embit.networks import NETWORKS

INPUTS = [
    {"mnemonic": "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"},
    {"mnemonic": "legal winner thank year wave sausage worth useful legal winner thank yellow", "passphrase": "TREZOR"},
    {"seed": "000102030405060708090a0b0c0d0e0f"},
]
KINDS = [  # purpose, script, SLIP-132 public prefix key in embit's network table
    (44, "p2pkh", "xpub"), (49, "p2sh-p2wpkh", "ypub"), (84, "p2wpkh", "zpub"), (86, "p2tr", "xpub"),
]

def address(pub, kind, net):
    if kind == "p2pkh": return script.p2pkh(pub).address(net)
    if kind == "p2sh-p2wpkh": return script.p2sh(script.p2wpkh(pub)).address(net)
    if kind == "p2wpkh": return script.p2wpkh(pub).address(net)
    return script.p2tr(pub).address(net)

cases = []
for inp in INPUTS:
    seed = bytes.fromhex(inp["seed"]) if "seed" in inp else bip39.mnemonic_to_seed(inp["mnemonic"], inp.get("passphrase", ""))
    for name in ["test", "signet", "regtest"]:
        net = NETWORKS[name]
        root = bip32.HDKey.from_seed(seed, version=net["xprv"])
        for purpose, kind, slip in KINDS:
            path = f"m/{purpose}'/1'/0'"
            acct = root.derive(path)
            case = dict(inp, network=name, purpose=purpose, script=kind, account_path=path,
                        master_fingerprint=root.child(0).fingerprint.hex() if False else root.my_fingerprint.hex(),
                        tpub=acct.to_public().to_string(version=net["xpub"]),
                        tprv=acct.to_string(version=net["xprv"]))
            if slip != "xpub":
                case["slip132_prefix"] = {"ypub": "upub", "zpub": "vpub"}[slip]
                case["slip132"] = acct.to_public().to_string(version=net[slip])
            case["addresses"] = []
            for change in (0, 1):
                for i in range(3):
                    child = acct.derive([change, i])
                    case["addresses"].append({"path": f"{path}/{change}/{i}", "address": address(child.key.get_public_key(), kind, net),
                                              "public_key": child.key.get_public_key().sec().hex(), "wif": child.key.wif(net)})
            cases.append(case)

# Public keys at the EIP-1581 example path and Status' EIP-1581 paths, from BIP32 vector 1's seed.
root = bip32.HDKey.from_seed(bytes.fromhex("000102030405060708090a0b0c0d0e0f"))
eip1581 = [{"path": p, "public_key": root.derive(p).key.get_public_key().sec().hex()}
           for p in ["m/43'/60'/1581'/4'/1469833213'/1555737549", "m/43'/60'/1581'/0'/0", "m/43'/60'/1581'/1'/0"]]

json.dump({"source": "embit 0.8.0 (PyPI), scripts/make-testnet-fixture.py", "cases": cases,
           "eip1581_seed": "000102030405060708090a0b0c0d0e0f", "eip1581": eip1581}, sys.stdout, indent=1)
print()
