#!/bin/bash
# Builds satchel-fuzz for libFuzzer: every Swift and C target it uses instrumented for
# coverage and AddressSanitizer, in its own build tree, apart from the development build. lld
# links it: gold stops on the sanitizer runtime's debug info. Prints the binary's path.
#
#   scripts/fuzz-build.sh          optimized (-O), in .build-fuzz: make fuzz's campaigns
#   scripts/fuzz-build.sh --smoke  unoptimized (-Onone), in .build-fuzz-smoke: make test's two
#                                  seconds a target, where the build is the cost (the -O build
#                                  took most of the fuzz smoke's 17 minutes in CI)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/opt/swift/usr/bin"
scratch=.build-fuzz optimize=-O
if [ "${1:-}" = --smoke ]; then scratch=.build-fuzz-smoke optimize=-Onone; fi
flags=(--product satchel-fuzz --scratch-path "$scratch"
       -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc "$optimize" -Xswiftc -use-ld=lld
       -Xcc -fsanitize=fuzzer-no-link,address)
swift build "${flags[@]}" >&2
echo "$(swift build "${flags[@]}" --show-bin-path)/satchel-fuzz"
