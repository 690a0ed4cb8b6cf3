# Satchel — the two commands of the README's quick start are `make demo` and `make test`.
# Both install missing Debian packages first (scripts/install-deps.sh) and build.
SHELL := /bin/bash
export PATH := $(PATH):/opt/swift/usr/bin
SWIFT_FLAGS ?=
BIN_DIR = $(shell swift build $(SWIFT_FLAGS) --show-bin-path)

.PHONY: all deps build test unit e2e lint demo bench clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	swift build $(SWIFT_FLAGS)

# Unit tests, vector tests and end-to-end tests of the built executables (one swift test run),
# then the man pages through mandoc's linter.
test: build lint
	SATCHEL_BIN_DIR="$(BIN_DIR)" swift test $(SWIFT_FLAGS)

lint: deps
	mandoc -Tlint -Wwarning man/*.1

demo: build
	PATH="$(BIN_DIR):$$PATH" examples/demo.sh

# Benchmarks in a release build, against a C reference measured in the same run.
bench:
	@scripts/install-deps.sh python3 python3-venv gcc
	swift build -c release --product satchel-bench
	swift build -c release --product mnemonic
	swift build -c release --product derive
	swift build -c release --product sign-hash
	swift build -c release --product scan-blocks
	python3 bench/run.py --bin "$$(swift build -c release --show-bin-path)"
	python3 bench/monero_scan.py --bin "$$(swift build -c release --show-bin-path)"

clean:
	rm -rf .build
