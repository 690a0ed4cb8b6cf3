#!/usr/bin/env python3
"""BIP392 sp() descriptors by embit's BIP350 bech32m and BIP380 checksum (a Python Bitcoin
library, the one scripts/bip48-oracle.py uses), for the expected values of
Tests/BitcoinTests/SilentPaymentDescriptorTests.swift. Reads JSON lines {"scan_key": hex,
"spend": hex (a private key: spspend; a compressed public key: spscan), "testnet": bool,
"origin": "[fingerprint/path]" or ""}; writes each descriptor.

    .build/embit-venv/bin/python3 scripts/bip392-oracle.py < cases.jsonl
"""
import json, sys
from embit import bech32
from embit.descriptor.checksum import add_checksum

for line in sys.stdin:
    case = json.loads(line)
    scan, spend = bytes.fromhex(case["scan_key"]), bytes.fromhex(case["spend"])
    kind = "spspend" if len(spend) == 32 else "spscan"
    hrp = ("t" if case["testnet"] else "") + kind
    key = bech32.bech32_encode(bech32.Encoding.BECH32M, hrp, [0] + bech32.convertbits(scan + spend, 8, 5))
    print(add_checksum("sp(" + case.get("origin", "") + key + ")"))
