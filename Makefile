# The two commands: `make demo` runs the main job end to end, `make test` builds and passes every
# test. Both install what is missing first (scripts/install-deps.sh) and are safe to run again.
SHELL := /bin/bash
.ONESHELL:
.SHELLFLAGS := -euo pipefail -c
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

# ccache, when installed, makes a rebuild (a second clone, CI on this machine) mostly cache hits.
# The cache stays outside the checkout (ccache's default, ~/.cache/ccache, or $CCACHE_DIR). Paths
# under the checkout are hashed relative to it and the build directory is left out of the hash, so
# two clones at different paths share entries. The tests' precompiled header is left out under
# ccache: ccache hashes the .gch, which differs per checkout path, so with it every test folder of a
# second clone missed (the libraries hit).
ifneq ($(shell command -v ccache 2>/dev/null),)
LAUNCHER := -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
            -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON
export CCACHE_BASEDIR ?= $(CURDIR)
export CCACHE_NOHASHDIR ?= 1
export CCACHE_SLOPPINESS ?= pch_defines,time_macros,include_file_mtime,include_file_ctime
else
LAUNCHER := -DCMAKE_C_COMPILER_LAUNCHER= -DCMAKE_CXX_COMPILER_LAUNCHER= \
            -DCMAKE_DISABLE_PRECOMPILE_HEADERS=OFF
endif

.PHONY: all deps build asan tsan fuzz-build test test-release test-asan test-tsan test-fuzz demo bench clean docs

all: build

deps:
	bash scripts/install-deps.sh

# Release build: what `demo`, `bench` and users run.
build: deps
	cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release $(LAUNCHER) $(CMAKE_FLAGS) >/dev/null
	ninja -C build/release -j $(JOBS)

# AddressSanitizer + UndefinedBehaviorSanitizer build of everything but the slow process tests.
# -g1 (line tables) is all a sanitizer report needs and compiles markedly faster than -g.
asan: deps
	cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
	  -DSINKD_SANITIZE=ON -DSINKD_BUILD_BENCH=OFF -DSINKD_SLOW_TESTS=OFF $(LAUNCHER) $(CMAKE_FLAGS) >/dev/null
	ninja -C build/asan -j $(JOBS)

# ThreadSanitizer build of the threaded code's tests only (the drain and its prefetcher, JetStream
# keep-alives, the metrics listener in http and the drain's figures it serves, the outbox
# dispatcher and its leases, the sinks, the encode pool in base, the lake's parallel flush and the
# import's flush thread, compaction's merge lanes, the Avro blocks of a manifest inflated, decoded
# and deflated on a pool, and the catalog that does so): the rest of the tree is single-threaded
# and already runs under ASan.
TSAN_FOLDERS := avro backfill base compact drain http iceberg jetstream lake metrics outbox sinks
TSAN_LABELS := ^($(shell echo $(TSAN_FOLDERS) | tr ' ' '|'))$$
tsan: deps
	cmake -S . -B build/tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
	  -DSINKD_TSAN=ON -DSINKD_BUILD_BENCH=OFF -DSINKD_SLOW_TESTS=OFF $(LAUNCHER) $(CMAKE_FLAGS) >/dev/null
	ninja -C build/tsan -j $(JOBS) $(addsuffix _test,$(TSAN_FOLDERS))

# libFuzzer targets, built with clang (gcc has no libFuzzer).
fuzz-build: deps
	CC=clang CXX=clang++ cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DSINKD_FUZZ=ON $(LAUNCHER) $(CMAKE_FLAGS) >/dev/null
	ninja -C build/fuzz -j $(JOBS)

test-release: build
	ctest --test-dir build/release --output-on-failure -j $(JOBS) --timeout 900

# Package.* (make deb) run in the release suite only: the package is made of the release build,
# and one made of the ASan build links libasan and lacks what the shipped lintian overrides name.
test-asan: asan
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir build/asan --output-on-failure -j $(JOBS) --timeout 900 -E '^Package\.'

# Any report fails its test (the process exits 66). tests/tsan.supp may list only races proven to
# lie inside third-party code.
# NatsAuth.* (nkey, .creds and TLS against nats-server) run in the release and ASan suites only:
# under TSan, cnats's TLS connection showed a race between two of its own threads on one libssl
# object (a fresh-clone run, 2026-12-01), which no sinkd code touches.
# PartReaderDifferential.* (single-threaded: the reader against DuckDB on every value) run in the
# release and ASan suites only: under TSan one of them took 218 s and they start no thread of ours.
test-tsan: tsan
	TSAN_OPTIONS="second_deadlock_stack=1 suppressions=$(CURDIR)/tests/tsan.supp" \
	  ctest --test-dir build/tsan --output-on-failure -j $(JOBS) --timeout 900 -L '$(TSAN_LABELS)' \
	  -E '^(NatsAuth|PartReaderDifferential)\.'

test-fuzz: fuzz-build
	bash scripts/run-fuzzers.sh build/fuzz

# The four suites run at once, each to its end (-k), their output grouped per suite (-O): a test
# binary mostly waits on the servers it started, so the release tests run while the sanitizer
# builds compile.
test:
	$(MAKE) --no-print-directory -j4 -k -O test-release test-asan test-tsan test-fuzz
	@echo "make test: every suite passed (release, asan+ubsan, tsan, fuzz)"

# The reliability campaign of RELIABILITY.md against real servers, not part of `make test`:
# 21 minutes on 2 cores (1,232 s); CHAOS_SCALE=quick for a few. Prints each figure, fails on a
# broken promise.
.PHONY: chaos
chaos: build fuzz-build
	bash tools/chaos/chaos.sh

demo: build
	bash scripts/demo.sh

# The README's picture: docs/pipeline.svg rendered from docs/pipeline.dot by graphviz (the build
# renders the same into build/release/docs for the installed README; tests/docs compares both).
docs: deps
	dot -Tsvg docs/pipeline.dot -o docs/pipeline.svg

bench: build
	bash scripts/bench.sh

clean:
	rm -rf build

# Installs what `make build` built: the binary, the systemd units, the sysusers entry, the man
# page, the bash completion, the README and the examples (README "Running under systemd"):
# `make install`, `make install PREFIX=/usr DESTDIR=/tmp/pkg`. It compiles nothing, so that
# `sudo make install` never builds as root into the checkout.
PREFIX ?= /usr/local
.PHONY: install deb
install:
	@test -x build/release/src/cli/sinkd || \
	  { echo "make install: nothing is built in build/release: run make build first" >&2; exit 1; }
	DESTDIR="$(DESTDIR)" cmake --install build/release --prefix "$(PREFIX)"

# build/sinkd_<version>_<arch>.deb, with dpkg-deb (deploy/debian/build-deb.sh): the same files
# under /usr, /etc/sinkd/sinkd.toml as a conffile, the sinkd user created on install.
deb: build
	bash deploy/debian/build-deb.sh build/release build
