#!/usr/bin/env python3
"""The shape of the code in numbers, for a change's before and after (issue 57's list).

Prints, for the tree it is run in (or the one given):
  - lines of Swift per module (Sources/*);
  - the modules each executable and job library imports;
  - chain string comparisons outside the chain modules: a coin or chain name compared with
    ==, != or matched by `case` ("xmr", "zcash", ...);
  - chain cases matched outside the chain modules: `case .monero`, `.zcash`, `.bip32`
    of KeySource, in a switch or an if/guard.
A job library's file named for a chain (ScanRecords/MoneroScanChain.swift) is that chain's
conformer: its lines are counted apart, as the chain's own.
Usage: scripts/shape-metrics.py [ROOT]
"""
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else "."
SOURCES = os.path.join(ROOT, "Sources")
# The modules that are a chain: their own knowledge of it is where it belongs.
CHAIN_MODULES = {"Monero", "MoneroScan", "MoneroNode", "Zcash", "ZcashScan", "ZcashLightwalletd", "Bitcoin", "BitcoinScan",
                 "BitcoinNode", "Ethereum"}
JOB_LIBRARIES = ["KeySources", "MnemonicRecords", "DeriveRecords", "SigningRecords", "SigningQR", "ScanRecords", "QRRecords",
                 "WalletCardCLI"]
NAMES = "xmr|zec|btc|ltc|eth|monero|zcash|bitcoin|litecoin|ethereum"
COMPARISON = re.compile(r'(?:==|!=)\s*"(?:%s)"|"(?:%s)"\s*(?:==|!=)|\bcase\s+"(?:%s)"' % (NAMES, NAMES, NAMES))
CHAIN_CASE = re.compile(r"\bcase\s+(?:let\s+)?\.(?:monero|zcash|bip32)\b")
CHAIN_FILE = re.compile(r"^(Monero|Zcash|Bitcoin|Litecoin|Ethereum)")
IMPORT = re.compile(r"^\s*(?:@\w+\s+)*import\s+(\w+)", re.M)


def swift_files(module):
    for base, _, files in os.walk(os.path.join(SOURCES, module)):
        for name in sorted(files):
            if name.endswith(".swift"):
                yield os.path.join(base, name)


def main():
    modules = sorted(d for d in os.listdir(SOURCES) if os.path.isdir(os.path.join(SOURCES, d)))
    lines, imports, comparisons, cases, owned = {}, {}, [], [], []
    for module in modules:
        count, imported = 0, set()
        for path in swift_files(module):
            with open(path) as f:
                text = f.read()
            count += text.count("\n")
            imported.update(IMPORT.findall(text))
            if module in CHAIN_MODULES:
                continue
            own = CHAIN_FILE.match(os.path.basename(path)) is not None
            for number, line in enumerate(text.splitlines(), 1):
                if line.lstrip().startswith("//"):
                    continue
                rel = os.path.relpath(path, ROOT)
                found = [f"{rel}:{number}"] * (len(COMPARISON.findall(line)) + len(CHAIN_CASE.findall(line)))
                if own:
                    owned += found
                    continue
                comparisons += [f"{rel}:{number}"] * len(COMPARISON.findall(line))
                cases += [f"{rel}:{number}"] * len(CHAIN_CASE.findall(line))
        if count:
            lines[module] = count
        imports[module] = sorted(imported - {"Foundation", "Dispatch", "Glibc", "Synchronization"})
    print("## Lines of Swift per module")
    for module, count in sorted(lines.items(), key=lambda item: -item[1]):
        print(f"{count:6d}  {module}")
    print(f"{sum(lines.values()):6d}  (all)")
    print("\n## Imports")
    for module in ["scan-blocks", "sign-tx", "derive"] + JOB_LIBRARIES:
        if module in imports:
            print(f"{module} ({len(imports[module])}): {' '.join(imports[module])}")
    print(f"\n## Chain string comparisons outside the chain modules: {len(comparisons)}")
    for where in comparisons:
        print("  " + where)
    print(f"\n## KeySource chain cases matched outside the chain modules: {len(cases)}")
    for where in cases:
        print("  " + where)
    print(f"\n## Both, in the chains' own files of the job libraries: {len(owned)}")


main()
