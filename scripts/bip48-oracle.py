#!/usr/bin/env python3
"""BIP48 account keys by embit (a Python Bitcoin library, pinned in the test's venv), for
DeriveToolTests: reads `derive account --purpose 48` records with the phrase added back as
"mnemonic", writes for each the xpub, its SLIP-132 form (Zpub/Ypub; Vpub/Upub on test
networks, which embit keys as Zpub/Ypub too), the master fingerprint, and whether the record's
descriptor_key parses in a multisig descriptor with that fingerprint as its origin."""
import json, sys
from embit import bip39, bip32
from embit.networks import NETWORKS
from embit.descriptor import Descriptor

for line in sys.stdin:
    r = json.loads(line)
    testnet = r["network"] != "main"
    net = NETWORKS["test" if testnet else "main"]
    root = bip32.HDKey.from_seed(bip39.mnemonic_to_seed(r["mnemonic"]))
    account = root.derive(r["path"].replace("'", "h")).to_public()
    embit_slip = "Zpub" if r["script"] == "p2wsh" else "Ypub"
    ours = {("Zpub", False): "Zpub", ("Zpub", True): "Vpub", ("Ypub", False): "Ypub", ("Ypub", True): "Upub"}[(embit_slip, testnet)]
    wrapped = "wsh(sortedmulti(1,%s))" if r["script"] == "p2wsh" else "sh(wsh(sortedmulti(1,%s)))"
    d = Descriptor.from_string(wrapped % r["descriptor_key"])
    print(json.dumps({"xpub": account.to_base58(version=net["xpub"]), ours: account.to_base58(version=net[embit_slip]),
                      "master_fingerprint": root.my_fingerprint.hex(),
                      "descriptor_origin": d.keys[0].origin.fingerprint.hex() + str(d.keys[0].origin.derivation)}))
