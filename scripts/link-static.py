#!/usr/bin/env python3
"""Links Satchel's tools with the Swift runtime and Foundation inside them (make install), from
the objects of SwiftPM's ordinary build.

    scripts/link-static.py --config debug|release --out DIR TOOL...

Why not `swift build --static-swift-stdlib`: that compiles every module again, in a build of its
own (13 minutes on 2 cores for the seven tools in debug; the same again in make test's
InstallTests), though its objects differ from the ordinary build's only in their autolink entries,
the libraries each object asks the linker for: compiled against the toolchain's static resource
directory, `import Foundation` also asks for the archives Foundation's static build needs
(CoreFoundation, _FoundationICU, _FoundationCShims, _FoundationCollections on Swift 6.3). The
machine code is the same (the .text of an object compiled both ways compares equal).

So, for each tool, this runs SwiftPM's own link command, read from the build manifest
(SCRATCH/CONFIG.yaml, written by `swift build -c CONFIG`), with two changes: -static-stdlib, and
one more object, compiled here against the static resource directory, that imports Foundation:
its autolink entries name exactly the archives this toolchain's static Foundation needs. Then it
refuses a result that still loads the Swift runtime, Foundation or libdispatch from outside.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

# Shared libraries a statically linked tool must not load (the toolchain's).
RUNTIME = re.compile(r"\[(libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime|libXCTest)")


def fail(message):
    print(f"link-static: {message}", file=sys.stderr)
    sys.exit(1)


def link_command(manifest, lines, tool, config):
    """SwiftPM's link command for tool: the args of its C.TOOL-TRIPLE-CONFIG.exe command."""
    key = re.compile(r'^  "C\.' + re.escape(tool) + r"-(.+)-" + re.escape(config) + r'\.exe":$')
    for i, line in enumerate(lines):
        match = key.match(line)
        if not match:
            continue
        for body in lines[i + 1 :]:
            if not body.startswith("    "):
                break
            if body.startswith("    args: "):
                return match.group(1), json.loads(body[len("    args: ") :])
        fail(f"{manifest} has no args for {tool}'s link command: SwiftPM's manifest format changed; mend this script")
    fail(f"{manifest} has no link command for {tool}: run `swift build -c {config} --product {tool}` first")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", choices=["debug", "release"], required=True)
    parser.add_argument("--scratch", default=".build", help="SwiftPM's scratch path (.build)")
    parser.add_argument("--out", required=True, help="the directory for the linked tools")
    parser.add_argument("tools", nargs="+")
    args = parser.parse_args()

    manifest = os.path.join(args.scratch, f"{args.config}.yaml")
    try:
        with open(manifest, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        fail(f"cannot read {manifest} ({e.strerror}): run `swift build -c {args.config}` first")
    os.makedirs(args.out, exist_ok=True)

    with tempfile.TemporaryDirectory(prefix="link-static-") as work:
        stub_objects = {}  # triple → the object that imports the static Foundation
        for tool in args.tools:
            triple, command = link_command(manifest, lines, tool, args.config)
            if not command or not command[0].endswith("swiftc") or "-emit-executable" not in command or "-o" not in command:
                fail(f"{tool}'s link command in {manifest} is not a swiftc -emit-executable: mend this script")
            if triple not in stub_objects:
                source = os.path.join(work, "StaticFoundation.swift")
                with open(source, "w", encoding="utf-8") as f:
                    f.write("import Foundation\n")
                obj = os.path.join(work, f"StaticFoundation-{triple}.o")
                # -O: an unoptimized object would also ask for SwiftOnoneSupport.
                subprocess.run(
                    [command[0], "-static-stdlib", "-O", "-parse-as-library", "-module-name", "SatchelStaticFoundation",
                     "-target", triple, "-c", source, "-o", obj],
                    check=True)
                stub_objects[triple] = obj
            output = os.path.join(args.out, tool)
            partial = output + ".partial"
            command = list(command)
            command[command.index("-o") + 1] = partial
            command.insert(command.index("-emit-executable") + 1, "-static-stdlib")
            command.append(stub_objects[triple])
            print(f"linking {output}", flush=True)
            result = subprocess.run(command, stderr=subprocess.PIPE, text=True)
            # glibc's warning about mktemp inside the static Foundation is the linker's, not ours.
            noise = [line for line in result.stderr.splitlines() if "the use of `mktemp' is dangerous" not in line]
            if noise:
                print("\n".join(noise), file=sys.stderr)
            if result.returncode != 0:
                fail(f"linking {tool} failed (exit {result.returncode})")
            dynamic = subprocess.run(["readelf", "-d", partial], stdout=subprocess.PIPE, text=True, check=True).stdout
            loaded = [m.group(0)[1:] for line in dynamic.splitlines() if "(NEEDED)" in line for m in [RUNTIME.search(line)] if m]
            if loaded:
                os.unlink(partial)
                fail(f"{tool} still loads {', '.join(loaded)} from the toolchain: it would not run without it")
            os.replace(partial, output)


if __name__ == "__main__":
    main()
