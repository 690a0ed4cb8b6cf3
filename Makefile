# Satchel — the two commands of the README's quick start are `make demo` and `make test`.
# Both install missing Debian packages first (scripts/install-deps.sh) and build: `make demo`
# only what building and running needs, `make test` also what the tests use.
SHELL := /bin/bash
export PATH := $(PATH):/opt/swift/usr/bin
SWIFT_FLAGS ?=
BIN_DIR = $(shell swift build $(SWIFT_FLAGS) --show-bin-path)

.PHONY: all deps test-deps build test unit e2e lint format demo bench check-long clean install uninstall fuzz fuzz-smoke ctime ctime-c ctime-swift

# make install [PREFIX=/usr/local] [DESTDIR=…] [CONFIG=release]: the tools, their man pages and
# bash, zsh and fish completions (INSTALL_FROM=DIR installs already built tools from DIR).
# The tools are linked with the Swift runtime and Foundation inside them (-static-stdlib), so they
# run on a machine with no Swift toolchain (an offline signer), stripped. Their objects are the
# ordinary build's (swift build -c $(CONFIG), in .build, as make bench's): scripts/link-static.py
# links each tool again from SwiftPM's own link command with the static runtime, into
# .build/static-$(CONFIG), instead of a second build of every module (--static-swift-stdlib),
# whose objects differ only in the libraries they name to the linker.
# make uninstall [PREFIX=…] removes exactly those files, and the directories install created.
PREFIX ?= /usr/local
CONFIG ?= release
TOOLS = mnemonic derive sign-hash sign-tx keystore scan-blocks card-info
BASH_COMPLETIONS = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSH_COMPLETIONS = $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISH_COMPLETIONS = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
MANIFEST_DIR = $(DESTDIR)$(PREFIX)/share/satchel
INSTALL_DIRS = $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(BASH_COMPLETIONS) $(ZSH_COMPLETIONS) $(FISH_COMPLETIONS) $(MANIFEST_DIR)

all: build

deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-deps.sh --test

build: deps
	swift build $(SWIFT_FLAGS)

# Unit tests, vector tests and end-to-end tests of the built executables: the XCTest bundle in
# two shards side by side, and the fuzz smoke run beside them (scripts/test.sh); the man pages
# through mandoc's linter first.
test: test-deps build lint ctime
	swift build --build-tests $(SWIFT_FLAGS)
	SATCHEL_BIN_DIR="$(BIN_DIR)" FUZZ_SMOKE_SECONDS=$(FUZZ_SMOKE_SECONDS) scripts/test.sh

# The constant-time checks, as libsecp256k1's ctime tests: every entry point that takes a
# secret, called with the secret marked undefined, under valgrind's memcheck; a branch or an
# address that depends on it fails (exit 42). ctime-c: CCurveBatch (Tests/ctime/ctime.c) on the
# portable and AVX2 paths, built apart with its C flags (clang -O2; DWARF 4, which Debian's
# valgrind reads). ctime-swift: the Swift code that runs Zcash's and Monero's curve arithmetic
# on the portable path (a CPU without AVX2), their key derivations, BIP352's scan with a
# secret scan key and its outputs from a secret input key, and a BIP374 proof (through
# libsecp256k1: ECDH, t_k·G; Tests/ctime/Swift), in
# the debug build the tests run (whose libraries are optimized too) and in the release build
# `make install` installs, each run from a copy without debug information (Debian's valgrind
# reads no DWARF 5); its canary branches on the secret on purpose and must be reported.
CTIME_CC ?= $(shell command -v clang || echo cc)
ctime: ctime-c ctime-swift

ctime-c: test-deps
	@mkdir -p .build
	$(CTIME_CC) -O2 -gdwarf-4 -I Sources/CCurveBatch/include Sources/CCurveBatch/*.c Tests/ctime/ctime.c -lsodium -o .build/ctime
	valgrind -q --error-exitcode=42 .build/ctime

ctime-swift: test-deps
	@mkdir -p .build
	@set -e; for config in debug release; do \
	  echo "swift build -c $$config --product satchel-ctime"; \
	  swift build -c $$config --product satchel-ctime; \
	  objcopy --strip-debug "$$(swift build -c $$config --show-bin-path)/satchel-ctime" .build/satchel-ctime-$$config; \
	  valgrind -q --error-exitcode=42 .build/satchel-ctime-$$config; \
	  status=0; valgrind -q --error-exitcode=42 .build/satchel-ctime-$$config canary >/dev/null 2>&1 || status=$$?; \
	  if [ $$status -ne 42 ]; then echo "ctime-swift: memcheck did not report the canary's branch on the secret ($$config, exit $$status): the check could not fail" >&2; exit 1; fi; \
	  echo "ctime-swift ($$config): the canary's branch on the secret was reported, as it must be"; \
	done

# Every fuzz target over its committed corpus in the plain build (no sanitizer between the
# code and the inputs), then in the instrumented build (.build-fuzz-smoke: libFuzzer,
# AddressSanitizer, unoptimized) with FUZZ_SMOKE_SECONDS of fresh mutations each
# (docs/RELIABILITY.md).
FUZZ_SMOKE_SECONDS ?= 2
fuzz-smoke: build
	scripts/fuzz.sh --smoke $(FUZZ_SMOKE_SECONDS) "$(BIN_DIR)/satchel-fuzz"

# make fuzz [FUZZ_RUNS=N] [FUZZ_TARGETS="psbt rlp"]: N executions a target (10^6 by default;
# about 76 minutes for all on 2 cores, see docs/RELIABILITY.md), two targets at a time; inputs
# that add coverage are merged into Fuzz/corpus, to be committed with any finding's regression test.
FUZZ_RUNS ?= 1000000
fuzz: test-deps
	scripts/fuzz.sh --runs $(FUZZ_RUNS) $(FUZZ_TARGETS)

# The code as .swift-format lays it out (swift format, in the toolchain: `make format` applies
# it); Package.swift against the imports (scripts/check-imports.py) and the resolved package graph
# against Dependencies.pinned (scripts/check-pins.py), docs/ARCHITECTURE.md against the code
# (scripts/check-docs.py); mandoc's linter, and the pages as man(1) renders them, with no troff warning.
format:
	swift format format --configuration .swift-format -i -r Sources Tests Fuzz Benchmarks

lint: test-deps
	swift format lint --strict --configuration .swift-format -r Sources Tests Fuzz Benchmarks
	python3 scripts/check-imports.py
	python3 scripts/check-pins.py
	python3 scripts/check-docs.py
	python3 scripts/check-option-groups.py
	mandoc -Tlint -Wwarning man/*.1
	@for page in man/*.1; do \
	  warnings=$$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$$page" 2>&1 >/dev/null); \
	  if [ -n "$$warnings" ]; then echo "$$page: $$warnings" >&2; exit 1; fi; \
	done

demo: build
	PATH="$(BIN_DIR):$$PATH" examples/demo.sh

# The batched curve and hash kernels against libsodium, the Swift Keccak and libsecp256k1 on 10^6–10^7 random
# inputs, every path this CPU runs (make test holds them on 10^5).
check-long:
	swift build -c release --product monero-bench
	swift build -c release --product zcash-bench
	swift build -c release --product bitcoin-bench
	"$$(swift build -c release --show-bin-path)/monero-bench" --oracle 10000000
	"$$(swift build -c release --show-bin-path)/zcash-bench" --oracle 1000000
	"$$(swift build -c release --show-bin-path)/bitcoin-bench" --oracle 1000000

# Benchmarks in a release build, against a C reference measured in the same run.
bench:
	@scripts/install-deps.sh --test python3 python3-venv gcc
	swift build -c release --product satchel-bench
	swift build -c release --product mnemonic
	swift build -c release --product derive
	swift build -c release --product sign-hash
	swift build -c release --product scan-blocks
	swift build -c release --product monero-bench
	swift build -c release --product zcash-bench
	swift build -c release --product bitcoin-bench
	python3 bench/run.py --bin "$$(swift build -c release --show-bin-path)"
	python3 bench/monero_bulk.py --bin "$$(swift build -c release --show-bin-path)"
	python3 bench/zcash_keys.py --bin "$$(swift build -c release --show-bin-path)"
	python3 bench/zcash_scan.py --bin "$$(swift build -c release --show-bin-path)"
	python3 bench/zcash_orchard.py --bin "$$(swift build -c release --show-bin-path)"
	python3 bench/zcash_ironwood.py --bin "$$(swift build -c release --show-bin-path)"
	python3 bench/bitcoin_scan.py --bin "$$(swift build -c release --show-bin-path)"
	python3 bench/silent_payments.py --bin "$$(swift build -c release --show-bin-path)"
	python3 bench/tweak_records.py --bin "$$(swift build -c release --show-bin-path)"
	python3 bench/psbt_sign.py --bin "$$(swift build -c release --show-bin-path)"
	python3 bench/pczt_sign.py --bin "$$(swift build -c release --show-bin-path)"
	python3 bench/ur_decode.py --bin "$$(swift build -c release --show-bin-path)"
	"$$(swift build -c release --show-bin-path)/bitcoin-bench" sp-labels

install: deps
	@set -e; \
	if [ -n "$(INSTALL_FROM)" ]; then bin="$(INSTALL_FROM)"; else \
	  for t in $(TOOLS); do swift build -c $(CONFIG) --product $$t; done; \
	  bin=.build/static-$(CONFIG); python3 scripts/link-static.py --config $(CONFIG) --out "$$bin" $(TOOLS); fi; \
	created=(); \
	for d in $(INSTALL_DIRS); do \
	  while [ ! -d "$$d" ]; do created+=("$$d"); d=$$(dirname "$$d"); done; \
	done; \
	install -d $(INSTALL_DIRS); \
	for t in $(TOOLS); do \
	  install -s -m 0755 "$$bin/$$t" "$(DESTDIR)$(PREFIX)/bin/$$t"; \
	  install -m 0644 "man/$$t.1" "$(DESTDIR)$(PREFIX)/share/man/man1/$$t.1"; \
	  case $$t in derive) d=addresses;; sign-hash) d=sign;; card-info) d=info;; *) d=;; esac; \
	  if [ -n "$$d" ]; then "$$bin/$$t" --generate-completion-script bash | python3 scripts/completion-default.py $$t $$d > "$(BASH_COMPLETIONS)/$$t"; \
	  else "$$bin/$$t" --generate-completion-script bash > "$(BASH_COMPLETIONS)/$$t"; fi; \
	  "$$bin/$$t" --generate-completion-script zsh > "$(ZSH_COMPLETIONS)/_$$t"; \
	  "$$bin/$$t" --generate-completion-script fish > "$(FISH_COMPLETIONS)/$$t.fish"; \
	done; \
	if [ -f "$(MANIFEST_DIR)/created-dirs" ]; then cat "$(MANIFEST_DIR)/created-dirs"; fi > "$(MANIFEST_DIR)/created-dirs.new"; \
	printf '%s\n' "$${created[@]}" | sort -u >> "$(MANIFEST_DIR)/created-dirs.new"; \
	sort -u "$(MANIFEST_DIR)/created-dirs.new" | grep . > "$(MANIFEST_DIR)/created-dirs" || true; \
	rm -f "$(MANIFEST_DIR)/created-dirs.new"; \
	echo "installed $(TOOLS) into $(DESTDIR)$(PREFIX)"

# Files first; then the directories install made, deepest first, each only if it is empty.
uninstall:
	@for t in $(TOOLS); do \
	  rm -f "$(DESTDIR)$(PREFIX)/bin/$$t" "$(DESTDIR)$(PREFIX)/share/man/man1/$$t.1" \
	        "$(BASH_COMPLETIONS)/$$t" "$(ZSH_COMPLETIONS)/_$$t" "$(FISH_COMPLETIONS)/$$t.fish"; \
	done; \
	if [ -f "$(MANIFEST_DIR)/created-dirs" ]; then \
	  dirs=$$(awk '{ print length($$0) "\t" $$0 }' "$(MANIFEST_DIR)/created-dirs" | sort -rn | cut -f2-); \
	  rm -f "$(MANIFEST_DIR)/created-dirs"; \
	  for d in $$dirs; do rmdir "$$d" 2>/dev/null || true; done; \
	fi; \
	echo "removed $(TOOLS) from $(DESTDIR)$(PREFIX)"

clean:
	rm -rf .build .build-static-*
