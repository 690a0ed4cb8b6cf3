#!/bin/bash
# Builds satchel-fuzz for libFuzzer: every Swift and C target it uses instrumented for
# coverage and AddressSanitizer, in its own build tree (.build-fuzz), apart from the
# development build. lld links it: gold stops on the sanitizer runtime's debug info.
# Prints the binary's path.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
flags=(--product satchel-fuzz --scratch-path .build-fuzz
       -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -O -Xswiftc -use-ld=lld
       -Xcc -fsanitize=fuzzer-no-link,address)
swift build "${flags[@]}" >&2
echo "$(swift build "${flags[@]}" --show-bin-path)/satchel-fuzz"
