#!/usr/bin/env python3
"""Package.swift tells the truth: each Swift target imports exactly the modules it declares.

Reads the manifest as SwiftPM sees it (`swift package dump-package`), then every .swift file
of each target, and reports both ways:
  - declared but never imported: a dependency that only costs build time and binary size;
  - imported but not declared: a module reached through another target's dependency, which
    builds by accident and breaks when that one changes.
C targets are checked by their #include of each declared C library's header. A target may
keep an unimported dependency on purpose by naming it in LINK_ONLY below with the reason.
Prints one line per target and exits 1 on any disagreement.
Usage: scripts/check-imports.py [PACKAGE_JSON]   (default: runs swift package dump-package)
"""
import json
import os
import re
import subprocess
import sys

# Modules of the toolchain or the system: never declared.
SYSTEM = {"Foundation", "FoundationEssentials", "FoundationNetworking", "Dispatch", "XCTest", "Glibc", "Musl", "Darwin",
          "Synchronization", "_Concurrency", "Swift", "os", "SwiftShims", "Testing"}

# A product's module names, where they differ from the product's name.
PRODUCT_MODULES = {}

# (target, dependency): kept although no file imports it, and why.
LINK_ONLY = {}

IMPORT = re.compile(r"^\s*(?:@testable\s+|@_implementationOnly\s+|@preconcurrency\s+|(?:public|package|internal)\s+)*import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)", re.M)


def manifest(argv):
    if len(argv) > 1:
        with open(argv[1]) as f:
            return json.load(f)
    out = subprocess.run(["swift", "package", "dump-package"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def target_dir(target):
    if target.get("path"):
        return target["path"]
    base = "Tests" if target["type"] == "test" else "Sources"
    return os.path.join(base, target["name"])


def declared(target):
    names = set()
    for dep in target["dependencies"]:
        if "byName" in dep:
            names.add(dep["byName"][0])
        elif "target" in dep:
            names.add(dep["target"][0])
        elif "product" in dep:
            product = dep["product"][0]
            names.update(PRODUCT_MODULES.get(product, [product]))
    return names


def files(directory, suffixes, exclude):
    for root, dirs, names in os.walk(directory):
        dirs[:] = [d for d in dirs if os.path.join(root, d) not in exclude]
        for name in names:
            if name.endswith(suffixes):
                yield os.path.join(root, name)


def main(argv):
    package = manifest(argv)
    targets = {t["name"]: t for t in package["targets"]}
    system_libraries = {n for n, t in targets.items() if t["type"] == "system"}
    headers = {}  # a system library's header names, from its module map
    for name in system_libraries:
        directory = target_dir(targets[name])
        try:
            with open(os.path.join(directory, "module.modulemap")) as f:
                text = f.read()
        except OSError:
            continue
        headers[name] = set(re.findall(r'header\s+"([^"]+)"', text))
        shim = [os.path.join(directory, h) for h in headers[name] if os.path.exists(os.path.join(directory, h))]
        for path in shim:  # a shim header names the real ones
            with open(path) as f:
                headers[name].update(re.findall(r'#include\s*[<"]([^>"]+)[>"]', f.read()))

    modules = set(targets)
    for target in targets.values():
        for dep in target["dependencies"]:
            if "product" in dep:
                modules.update(PRODUCT_MODULES.get(dep["product"][0], [dep["product"][0]]))

    problems = 0
    for name, target in sorted(targets.items()):
        if target["type"] in ("system", "binary", "plugin", "macro"):
            continue
        directory = target_dir(target)
        exclude = {os.path.join(directory, e) for e in target.get("exclude", [])}
        deps = declared(target)
        swift_files = list(files(directory, (".swift",), exclude))
        c_files = list(files(directory, (".c", ".h"), exclude))
        used = set()
        if swift_files:
            for path in swift_files:
                with open(path, encoding="utf-8") as f:
                    used.update(IMPORT.findall(f.read()))
            # Only modules of the graph count: tests carry Python in string literals, whose
            # "import grpc" lines are not Swift's.
            used &= modules
            used.discard(name)
        else:
            included = set()
            for path in c_files:
                with open(path, encoding="utf-8") as f:
                    included.update(re.findall(r'#include\s*[<"]([^>"]+)[>"]', f.read()))
            used = {lib for lib, hs in headers.items() if hs & included}
        keep = {d for (t, d) in LINK_ONLY if t == name}
        unused = sorted(deps - used - keep)
        undeclared = sorted(used - deps)
        if unused or undeclared:
            problems += 1
            print(f"{name}: declared but not imported: {', '.join(unused) or '-'}; imported but not declared: {', '.join(undeclared) or '-'}")
        else:
            print(f"{name}: {len(deps)} dependencies, each imported" + (f" ({', '.join(sorted(keep))} link-only)" if keep else ""))
    # The layering comment at the top of Package.swift names every module that is not a test.
    try:
        with open("Package.swift") as f:
            header = "".join(l for l in f.read().split("import PackageDescription")[0].splitlines(True) if l.startswith("//"))
    except OSError:
        header = None
    if header is not None:
        words = set(re.findall(r"[A-Za-z0-9_-]+", header))
        unnamed = sorted(n for n, t in targets.items() if t["type"] != "test"
                         and n not in words and not (n.endswith("-bench") and "*-bench" in header))
        if unnamed:
            problems += 1
            print(f"Package.swift: the layering comment does not name {', '.join(unnamed)}")
    if problems:
        print(f"check-imports: {problems} target(s) whose imports and Package.swift disagree", file=sys.stderr)
        return 1
    print(f"check-imports: every target's imports and declared dependencies agree ({len(targets)} targets)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
