#!/usr/bin/env python3
"""Option groups nest one level at most: a group's own groups hold no groups.

A debug build's ArgumentParser validates each option group again inside every enclosing one
(five times a level); at four levels every debug tool run of the tests cost up to a second of
CPU (commit ff2ae91, docs/ARCHITECTURE.md). This reads every struct in Sources, takes the types
that some `@OptionGroup var x: T` names as groups, and fails where a chain of groups inside
groups is longer than two (command > group > group is the most allowed), naming the chain.
It first checks itself on two made-up trees, one allowed and one not, so that it can fail.
Usage: scripts/check-option-groups.py [SOURCES_DIR]   (default: Sources)
"""
import glob
import os
import re
import sys

GROUP = re.compile(r"@OptionGroup(?:\([^)]*\))?\s+(?:(?:public|package|internal|private|fileprivate)\s+)?var\s+\w+\s*:\s*([A-Za-z0-9_.]+)")
STRUCT = re.compile(r"(?:^|\n)[ \t]*(?:(?:public|package|internal|private|fileprivate|final)\s+)*struct\s+(\w+)[^{]*\{")
MAX_DEPTH = 2


def structs(text):
    """Each struct's name and body (brace matched; braces in string literals are rare here and
    only ever balanced)."""
    for m in STRUCT.finditer(text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        yield m.group(1), text[m.end():i]


def too_deep(texts):
    """The chains of groups longer than MAX_DEPTH, each as a list of type names."""
    contains = {}
    for text in texts:
        for name, body in structs(text):
            inner = [g.split(".")[-1] for g in GROUP.findall(body)]
            if inner:
                contains.setdefault(name, []).extend(inner)
    groups = {g for inner in contains.values() for g in inner}

    def chains(name, seen):
        children = [c for c in contains.get(name, []) if c not in seen]
        if not children:
            return [[name]]
        return [[name] + rest for c in children for rest in chains(c, seen | {c})]

    return sorted({tuple(c) for g in groups for c in chains(g, {g}) if len(c) > MAX_DEPTH})


def self_test():
    allowed = "struct Cmd { @OptionGroup var a: A }\nstruct A { @OptionGroup var b: B\n var s = \"{}\" }\nstruct B { var x = 1 }\n"
    refused = allowed.replace("struct B { var x = 1 }", "struct B { @OptionGroup(title: \"t\") var c: Mod.C }\nstruct C { }")
    assert too_deep([allowed]) == [], too_deep([allowed])
    assert too_deep([refused]) == [("A", "B", "C")], too_deep([refused])


def main():
    self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else "Sources"
    texts = [open(p, encoding="utf-8").read() for p in sorted(glob.glob(os.path.join(root, "**", "*.swift"), recursive=True))]
    bad = too_deep(texts)
    for chain in bad:
        print("check-option-groups: option groups nest %d deep: %s (at most %d: a group's groups hold no groups)"
              % (len(chain), " > ".join(chain), MAX_DEPTH), file=sys.stderr)
    if bad:
        sys.exit(1)
    print("check-option-groups: %d files, no option group nested more than one level" % len(texts))


if __name__ == "__main__":
    main()
