#!/usr/bin/env python3
"""docs/ARCHITECTURE.md names what exists: every file path it gives is a file of the repository,
every module of Package.swift is named in it, and every code name it gives (in backticks, and
in the module map) is a module, a declaration or a file of the code. Run by make lint.
Usage: scripts/check-docs.py [DOC]   (default docs/ARCHITECTURE.md)
"""
import json
import os
import re
import subprocess
import sys

DOC = sys.argv[1] if len(sys.argv) > 1 else "docs/ARCHITECTURE.md"
# Names of the toolchain, Foundation, the protocols Satchel speaks (lightwalletd's gRPC methods)
# and the libraries it calls: not Satchel's to declare.
OUTSIDE = {"Int", "Int8", "UInt64", "String", "Data", "JSONSerialization", "Process", "OpenSSL", "URLSession", "SwiftNIO", "BoringSSL",
           "GetBlockRange", "GetLatestBlock", "GetLightdInfo", "GetTransaction", "GetMempoolStream", "GetTreeState"}
ROOTS = ["Sources", "Tests", "Fuzz", "Benchmarks", "scripts", "bench", "examples", "man", "docs", "."]


def tracked_files():
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], capture_output=True, text=True, check=True).stdout
    return [l for l in out.splitlines() if l]


def main():
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    files = tracked_files()
    stems = {os.path.splitext(os.path.basename(p))[0] for p in files}
    manifest = json.loads(subprocess.run(["swift", "package", "dump-package"], capture_output=True, text=True, check=True).stdout)
    targets = [t["name"] for t in manifest["targets"]]
    kinds = {t["name"]: t["type"] for t in manifest["targets"]}
    declared = set(targets) | stems
    decl = re.compile(r"\b(?:struct|class|enum|protocol|typealias|actor|func|var|let|case|extension)\s+([A-Za-z_][A-Za-z0-9_]*)")
    for p in files:
        if p.endswith((".swift", ".c", ".h", ".inc", ".py", ".sh")):
            try:
                with open(p, encoding="utf-8", errors="replace") as f:
                    src = f.read()
            except OSError:
                continue
            declared.update(decl.findall(src))
            if p.endswith((".c", ".h", ".inc")):
                declared.update(re.findall(r"\b([a-z_][a-z0-9_]*)\s*\(", src))
            if p.endswith((".py", ".sh")):
                declared.update(re.findall(r"^\s*def\s+([A-Za-z_]\w*)", src, re.M))
    problems = []

    # 1. Paths: a word with a slash and a file suffix is a file of the repository.
    for path in sorted(set(re.findall(r"(?<![\w./-])((?:[\w.-]+/)+[\w.-]+\.(?:swift|c|h|inc|py|sh|md|json|jsonl|proto|modulemap))\b", text))):
        if path.startswith(("../", "~/")) or "shared/" in path:
            continue
        if not any(os.path.exists(os.path.join(root, path)) for root in ROOTS):
            problems.append(f"no such file: {path}")

    # 2. Every module is named (test targets apart: Tests/ is their map).
    for t in (t for t in targets if kinds[t] != "test"):
        if not re.search(r"(?<![\w-])" + re.escape(t) + r"(?![\w-])", text) and not (t.endswith("-bench") and "*-bench" in text):
            problems.append(f"module not named: {t}")

    # 3. Code names in backticks, and the module map's names, exist.
    names = set()
    for span in re.findall(r"`([^`\n]+)`", text):
        m = re.match(r"([A-Z][A-Za-z0-9_]*)(?:[.<(]|$)", span.strip())
        if m and re.search(r"[a-z]", m.group(1)):  # ALL_CAPS: an environment variable
            names.add(m.group(1))
    block = re.search(r"## Module map.*?```(.*?)```", text, re.S)
    if block:
        names.update(w for w in re.findall(r"\b([A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+)\b", block.group(1)))
    for name in sorted(names):
        if name not in declared and name not in OUTSIDE:
            problems.append(f"names what the code does not have: {name}")

    for p in problems:
        print(f"{DOC}: {p}")
    if problems:
        print(f"check-docs: {len(problems)} thing(s) {DOC} names that do not exist", file=sys.stderr)
        return 1
    print(f"check-docs: {DOC} names {len(names)} code names and every module, all of which exist")
    return 0


if __name__ == "__main__":
    sys.exit(main())
