# mn: the make targets README.md and docs/architecture.md document.
PREFIX ?= /usr/local
SWIFT ?= swift
# The release build records the commit it is built from for `mn --version`
# (scripts/build-info.sh writes it; a plain `swift build` says "unknown").
RELEASE_FLAGS = -c release --product mn --static-swift-stdlib --disable-local-rpath -Xswiftc -DMN_BUILD_COMMIT
BIN = .build/release/mn
VERSION := $(shell sed -n 's/^ *public static let version = "\(.*\)"$$/\1/p' Sources/Commands/CommandTable.swift)
# git's commit (-dirty with uncommitted changes), else the one `git archive` wrote into
# packaging/commit in a `make dist` tarball, else unknown.
COMMIT := $(shell c=$$(git rev-parse --short=12 HEAD 2>/dev/null) \
  && { git diff --quiet HEAD -- 2>/dev/null || c=$$c-dirty; echo $$c; } \
  || sed -n 's/^\([0-9a-f]\{12\}\)[0-9a-f]\{28\}$$/\1/p' packaging/commit)
DEB = dist/mn_$(VERSION)_$(shell dpkg --print-architecture 2>/dev/null || echo unknown).deb

.PHONY: setup build release build-info demo test conformance docs lint bench bench-codec fuzz \
  install deb dist check-package mac-check clean

setup:
	@scripts/setup.sh

build: setup
	$(SWIFT) build

build-info:
	@scripts/build-info.sh "$(COMMIT)"

release: setup build-info
	$(SWIFT) build $(RELEASE_FLAGS)

demo: release
	@scripts/demo.sh $(BIN)

# The end-to-end tests run twice: on the debug build, then on the release build that
# `make install` ships (it links differently: static libraries, no exported symbols; see Package.swift).
test: setup build-info
	# A target that imports one it does not declare (one above it) fails the build.
	$(SWIFT) build --build-tests --explicit-target-dependency-import-check error
	# No API newer than the macOS that Package.swift declares (platforms:), from the toolchain's symbol
	# graphs (mn.md §15; AvailabilityCheckTests proves it fails on a planted use).
	scripts/check-availability.py
	# Every Darwin-only line, compiled on any system against DarwinShim (mn.md §15;
	# DarwinRegionsTests fails on a region that neither target compiles).
	$(SWIFT) build --target DarwinCompileCheckPlatform
	$(SWIFT) build --target DarwinCompileCheckCodec
	$(SWIFT) build --target DarwinCompileCheck
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

# The Debian package: dist/mn_VERSION_ARCH.deb (scripts/deb.sh). Its binary is the release
# build linked with the system's shared zlib and libdeflate (MN_SYSTEM_LIBS, see Package.swift):
# only the link step differs, and the next `make release` links it back.
deb: setup build-info
	MN_SYSTEM_LIBS=1 $(SWIFT) build $(RELEASE_FLAGS)
	@scripts/deb.sh $(BIN) $(VERSION)

# The source tarball dist/mn-VERSION.tar.gz of the commit checked out (git archive), and the
# Homebrew formula for it, dist/mn.rb (packaging/homebrew/mn.rb with its url and sha256).
dist:
	@mkdir -p dist
	git archive --format=tar.gz --prefix=mn-$(VERSION)/ -o dist/mn-$(VERSION).tar.gz HEAD
	@sed -e "s|@URL@|file://$(CURDIR)/dist/mn-$(VERSION).tar.gz|" \
	  -e "s|@SHA256@|$$(sha256sum dist/mn-$(VERSION).tar.gz | cut -d' ' -f1)|" \
	  -e "s|@VERSION@|$(VERSION)|" packaging/homebrew/mn.rb >dist/mn.rb
	@echo dist/mn-$(VERSION).tar.gz dist/mn.rb

# Builds the .deb, runs lintian on it, installs it into a temporary root and exercises the
# installed mn, man pages, completions and systemd unit (CI runs it after make test).
check-package: deb
	@scripts/check-package.sh $(DEB) $(VERSION) $(COMMIT)

# On a Mac: build, swift test, and a live smoke test in a scratch folder inside iCloud Drive,
# with a report to paste into an issue (docs/macos.md). Elsewhere it says it needs a Mac and
# exits 69.
mac-check:
	@scripts/mac-check.sh

clean:
	rm -rf .build dist
