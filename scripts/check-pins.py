#!/usr/bin/env python3
"""Every build of the tools uses the same package code: the resolved graph must be exactly
Dependencies.pinned (identity, version, URL, one package a line, transitive ones included).

Package.swift pins its direct dependencies with `exact:`; SwiftPM pins nothing else, and
Package.resolved is not committed here (the machines' git copies have their own commit ids).
So the whole graph is listed in Dependencies.pinned and compared, both ways, with what
`swift package show-dependencies` resolved. A change of version is a reviewed change of
this file. Usage: scripts/check-pins.py [--write] [SHOW_DEPENDENCIES_JSON]
"""
import json
import subprocess
import sys

PINNED = "Dependencies.pinned"


def graph(argv):
    paths = [a for a in argv[1:] if not a.startswith("--")]
    if paths:
        with open(paths[0]) as f:
            return json.load(f)
    out = subprocess.run(["swift", "package", "show-dependencies", "--format", "json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def flatten(node, into):
    for dep in node.get("dependencies", []):
        into[dep["identity"]] = (dep["version"], dep["url"])
        flatten(dep, into)
    return into


def main(argv):
    resolved = flatten(graph(argv), {})
    lines = [f"{identity} {version} {url}" for identity, (version, url) in sorted(resolved.items())]
    if "--write" in argv:
        with open(PINNED, "w") as f:
            f.write("# identity version url: the resolved package graph (scripts/check-pins.py --write)\n")
            f.write("\n".join(lines) + "\n")
        print(f"check-pins: wrote {len(lines)} packages to {PINNED}")
        return 0
    with open(PINNED) as f:
        pinned = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    missing = sorted(set(pinned) - set(lines))
    extra = sorted(set(lines) - set(pinned))
    for l in missing:
        print(f"check-pins: pinned but not resolved: {l}")
    for l in extra:
        print(f"check-pins: resolved but not pinned: {l}")
    if missing or extra:
        print(f"check-pins: the package graph is not {PINNED}: pin the version in Package.swift (exact:) or review and run scripts/check-pins.py --write", file=sys.stderr)
        return 1
    print(f"check-pins: the package graph is {PINNED} ({len(lines)} packages)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
