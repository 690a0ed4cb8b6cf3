# Satchel — the two commands of the README's quick start are `make demo` and `make test`.
# Both install missing Debian packages first (scripts/install-deps.sh) and build.
SHELL := /bin/bash
export PATH := $(PATH):/opt/swift/usr/bin
SWIFT_FLAGS ?=
BIN_DIR = $(shell swift build $(SWIFT_FLAGS) --show-bin-path)

.PHONY: all deps build test unit e2e lint demo bench clean install uninstall

# make install [PREFIX=/usr/local] [DESTDIR=…] [CONFIG=release]: the tools, their man pages and
# bash, zsh and fish completions (INSTALL_FROM=DIR installs already built tools from DIR).
# make uninstall [PREFIX=…] removes exactly those files.
PREFIX ?= /usr/local
CONFIG ?= release
TOOLS = mnemonic derive sign-hash keystore scan-blocks card-info
BASH_COMPLETIONS = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSH_COMPLETIONS = $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISH_COMPLETIONS = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d

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
	swift build -c release --product monero-bench
	swift build -c release --product zcash-bench
	python3 bench/run.py --bin "$$(swift build -c release --show-bin-path)"
	python3 bench/monero_bulk.py --bin "$$(swift build -c release --show-bin-path)"
	python3 bench/zcash_keys.py --bin "$$(swift build -c release --show-bin-path)"
	python3 bench/zcash_scan.py --bin "$$(swift build -c release --show-bin-path)"

install: deps
	@set -e; \
	if [ -n "$(INSTALL_FROM)" ]; then bin="$(INSTALL_FROM)"; else \
	  swift build -c $(CONFIG) $(addprefix --product ,$(TOOLS)); bin="$$(swift build -c $(CONFIG) --show-bin-path)"; fi; \
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/share/man/man1" "$(BASH_COMPLETIONS)" "$(ZSH_COMPLETIONS)" "$(FISH_COMPLETIONS)"; \
	for t in $(TOOLS); do \
	  install -m 0755 "$$bin/$$t" "$(DESTDIR)$(PREFIX)/bin/$$t"; \
	  install -m 0644 "man/$$t.1" "$(DESTDIR)$(PREFIX)/share/man/man1/$$t.1"; \
	  "$$bin/$$t" --generate-completion-script bash > "$(BASH_COMPLETIONS)/$$t"; \
	  "$$bin/$$t" --generate-completion-script zsh > "$(ZSH_COMPLETIONS)/_$$t"; \
	  "$$bin/$$t" --generate-completion-script fish > "$(FISH_COMPLETIONS)/$$t.fish"; \
	done; \
	echo "installed $(TOOLS) into $(DESTDIR)$(PREFIX)"

uninstall:
	@for t in $(TOOLS); do \
	  rm -f "$(DESTDIR)$(PREFIX)/bin/$$t" "$(DESTDIR)$(PREFIX)/share/man/man1/$$t.1" \
	        "$(BASH_COMPLETIONS)/$$t" "$(ZSH_COMPLETIONS)/_$$t" "$(FISH_COMPLETIONS)/$$t.fish"; \
	done; echo "removed $(TOOLS) from $(DESTDIR)$(PREFIX)"

clean:
	rm -rf .build
