# mn: the make targets the README documents.
PREFIX ?= /usr/local
SWIFT ?= swift
RELEASE_FLAGS = -c release --static-swift-stdlib --disable-local-rpath
BIN = .build/release/mn

.PHONY: setup build release demo test conformance docs lint bench bench-codec fuzz install clean

setup:
	@scripts/setup.sh

build: setup
	$(SWIFT) build

release: setup
	$(SWIFT) build $(RELEASE_FLAGS)

demo: release
	@scripts/demo.sh $(BIN)

# The end-to-end tests run twice: on the debug build, then on the release build that
# `make install` ships (it links differently: static libraries, no PIE; see Package.swift).
test: setup
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --skip ConformanceTests
	$(SWIFT) build $(RELEASE_FLAGS)
	MN_TEST_BINARY=$(CURDIR)/$(BIN) $(SWIFT) test --skip-build --filter EndToEndTests

conformance: setup
	@test -d ../shared/fixtures || { echo "conformance: ../shared/fixtures is missing" >&2; exit 1; }
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter ConformanceTests

docs: build
	.build/debug/mn __generate-docs .

lint:
	$(SWIFT) format lint --strict -r Sources Tests Package.swift

bench: release
	@scripts/bench.sh $(BIN)

# Only the codec part of `make bench` (mn against ../shared/tools/am-oracle);
# BENCH_ONLY=WORDS keeps the lines whose name contains WORDS.
bench-codec: release
	@scripts/bench.sh --codec $(BIN)

fuzz: setup
	@scripts/fuzz.sh

install: release
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	  $(DESTDIR)$(PREFIX)/share/zsh/site-functions \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/mn
	install -m 644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 completions/mn.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/mn
	install -m 644 completions/_mn $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_mn
	install -m 644 completions/mn.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/mn.fish

clean:
	rm -rf .build
