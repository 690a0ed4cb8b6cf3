#!/usr/bin/env python3
"""The shape of the code in numbers, for a change's before and after (issue 57's list).

Prints, for the tree it is run in (or the one given):
  - lines of Swift per module (Sources/*);
  - the modules each executable and job library imports;
  - chain string comparisons outside the chain modules: a coin or chain name compared with
    ==, != or matched by `case` ("xmr", "zcash", ...);
  - chain cases matched outside the chain modules: KeySource's `case .monero`/`.zcash` (before
    they became `.chain(any ChainKey)`), and a chain key taken out of a source
    (`chainKey(MoneroKeys.self)`, `as? ZcashKeyMaterial`);
  - apart, BIP32 key-form matches (`case .bip32`): the key form every CoinNetwork chain shares,
    not one chain's, and typed chain comparisons (`Chain(code: coin) == .monero`).
A job library's file that is a chain's conformer — named for a chain (ScanRecords/
MoneroScanChain.swift, DeriveRecords/BIP32DeriveChain.swift) or declaring a type of a job's
chain protocol (`enum SilentPaymentDerive: DeriveChain`) — counts as that chain's own.
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
CHAIN_CASE = re.compile(r"\bcase\s+(?:let\s+)?\.(?:monero|zcash)\(|chainKey\((?:MoneroKeys|ZcashKeyMaterial)\.self\)"
                        r"|\b(?:as\?|is)\s+(?:MoneroKeys|ZcashKeyMaterial)\b")
BIP32_CASE = re.compile(r"\bcase\s+(?:let\s+)?\.bip32\b")
TYPED = re.compile(r"Chain\(code:[^)]*\)\s*[!=]=(?!\s*nil)|[!=]=\s*Chain\(code:")
CHAIN_FILE = re.compile(r"^(Monero|Zcash|Bitcoin|Litecoin|Ethereum|BIP32)")
CONFORMER = re.compile(r"^(?:public\s+)?(?:enum|struct|final class)\s+\w+(?:<[^>]*>)?\s*:\s*(?:DeriveChain|ScanChain)\b", re.M)
IMPORT = re.compile(r"^\s*(?:@\w+\s+)*import\s+(\w+)", re.M)


def swift_files(module):
    for base, _, files in os.walk(os.path.join(SOURCES, module)):
        for name in sorted(files):
            if name.endswith(".swift"):
                yield os.path.join(base, name)


def main():
    modules = sorted(d for d in os.listdir(SOURCES) if os.path.isdir(os.path.join(SOURCES, d)))
    lines, imports, comparisons, cases, owned, bip32, typed = {}, {}, [], [], [], [], []
    for module in modules:
        count, imported = 0, set()
        for path in swift_files(module):
            with open(path) as f:
                text = f.read()
            count += text.count("\n")
            imported.update(IMPORT.findall(text))
            if module in CHAIN_MODULES:
                continue
            own = CHAIN_FILE.match(os.path.basename(path)) is not None or CONFORMER.search(text) is not None
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
                bip32 += [f"{rel}:{number}"] * len(BIP32_CASE.findall(line))
                typed += [f"{rel}:{number}"] * len(TYPED.findall(line))
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
    for title, places in [
        ("Chain string comparisons outside the chain modules", comparisons),
        ("KeySource chain cases matched outside the chain modules", cases),
        ("Typed chain comparisons outside the chain modules", typed),
        ("BIP32 key-form matches outside the chain modules (not a chain's)", bip32),
    ]:
        print(f"\n## {title}: {len(places)}")
        for where in places:
            print("  " + where)
    print(f"\n## Both, in the chains' own files of the job libraries: {len(owned)}")


main()
