# yuvconv — see README.md. Every target installs the Debian packages it needs when they are missing
# (as root, with apt-get), or says what to install.

PREFIX ?= /usr/local
SWIFT ?= swift
# One binary for every x86-64 CPU: the hot rows are C compiled once per tier (baseline, AVX2, AVX-512BW,
# AVX-512 VNNI) and chosen at start-up from cpuid (docs/architecture.md#cpu-tiers), so the default build
# targets plain x86-64. CPU_FLAGS="-Xswiftc -target-cpu -Xswiftc native -Xcc -march=native" also compiles the
# Swift around them for this machine, a binary that only runs on CPUs like it.
CPU_FLAGS ?=
TEST_FLAGS = -c release $(CPU_FLAGS)
# The tools link the Swift runtime statically: a process starts in about 2.5 ms instead of 5 (measured with
# `yuvconv --version`), which is most of a small image's conversion. Tests build with the shared runtime.
BUILD_FLAGS = $(TEST_FLAGS) --static-swift-stdlib
BIN = .build/release/yuvconv

# Debian packages: build needs (pkg-config name → package).
# The distribution decides a package's name (/etc/os-release): Debian's libjpeg62-turbo-dev is Ubuntu's
# libjpeg-turbo8-dev; the others are named alike on both.
OS_IDS := $(shell . /etc/os-release 2>/dev/null; echo "$$ID $$ID_LIKE")
JPEG_DEV = $(if $(filter ubuntu,$(OS_IDS)),libjpeg-turbo8-dev,libjpeg62-turbo-dev)
BUILD_PKGS = pkg-config $(JPEG_DEV) libturbojpeg0-dev libpng-dev zlib1g-dev liblcms2-dev
# What the build needs, by pkg-config name: when pkg-config finds them all, nothing is installed.
BUILD_PC = libjpeg libturbojpeg libpng zlib lcms2

.PHONY: test-cpus all build deps install-build-packages test test-library test-fast demo install clean prove bench bench-deps bench-e2e bench-costs bench-batch bench-memory bench-sharp bench-sharp-passes quality fuzz test-sanitize test-corpus test-exact test-hostile compare-builds test-interop test-html check-fuzz-harnesses

all: build

define need_packages
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then sudo=""; elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo="sudo -n"; else sudo=none; fi; \
	  if [ "$$sudo" != none ] && command -v apt-get >/dev/null; then \
	    echo "installing:$$missing"; \
	    ($$sudo apt-get update -qq && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null) || exit 1; \
	  else \
	    echo "missing packages:$$missing — install them (sudo apt-get install$$missing) and run make again" >&2; exit 1; \
	  fi; \
	fi
endef

# The Python tools' packages (pip names) go into a virtual environment under .build, never into the system:
# $(call need_python,PACKAGES) makes the venv when needed (Debian: python3-venv) and installs what it lacks.
PYTHON ?= python3
VENV = .build/venv
VENV_PY = $(VENV)/bin/python
define need_python
	$(call need_packages,python3-venv)
	@test -x $(VENV)/bin/pip || $(PYTHON) -m venv --clear $(VENV)
	@$(VENV_PY) -m pip show -q $(1) >/dev/null 2>&1 || $(VENV_PY) -m pip install -q $(1)
endef

deps:
	@if command -v pkg-config >/dev/null && pkg-config --exists $(BUILD_PC); then :; else $(MAKE) --no-print-directory install-build-packages; fi

install-build-packages:
	$(call need_packages,$(BUILD_PKGS))

build: deps
	$(SWIFT) build $(BUILD_FLAGS)

# The whole suite with the fast rows, then again with YUV_FORCE_REFERENCE=1 (scalar references only) the
# tests whose code reads that variable: only YUVIO does (kernelChoiceFromEnvironment, the default of
# convertFile/convert), so the reference pass skips YUVCoreTests (the core has no environment; its tests
# pass .fast and .reference themselves), GoldenTests (passes both kernel choices explicitly) and ColourRowsTests
# (calls the colour rows of each tier by name: the same 50 s twice otherwise), and HostileTests and IOFaultTests
# (streams, signals, descriptors and files, whose conversions are compared only with the same binary's: no kernel
# choice changes what they check, and their waits on FIFOs and signals are among the slowest tests); nor do the
# suites that convert nothing they compare with a reference — PNG image data and its two routes against each
# other, the report's line order, the CPU tiers against each other (every tier is the reference then), options,
# the man page and completion (66 s of the pass on an AVX2-only EPYC); nor two tests that would run as in the
# first pass: the sited direct path passes both kernel choices itself, and --allow-truncated's every cut compares
# conversions with each other (28 s of the pass on a Zen 4 EPYC).
REFERENCE_SKIP = --skip 'YUVCoreTests\.' --skip 'YUVIOTests\.GoldenTests/' --skip 'YUVIOTests\.ColourRowsTests/' \
	--skip 'yuvconvTests\.HostileTests/' --skip 'yuvconvTests\.IOFaultTests/' --skip 'YUVIOTests\.PNGImageDataTests/' \
	--skip 'yuvconvTests\.PNGRouteTests/' --skip 'yuvconvTests\.StreamingReportTests/' --skip 'yuvconvTests\.CPUTierTests/' \
	--skip 'yuvconvTests\.OptionTests/' --skip 'yuvconvTests\.ManCompletionTests/' \
	--skip 'YUVIOTests\.DirectPathSitingTests/testSitedPlanesOnRealFilesMatchTheScalarReference' \
	--skip 'YUVIOTests\.CorpusTests/testAllowTruncatedConvertsWhatEveryCutHolds'
# Two at a time (`beside`): the first live, the second's output kept and printed after it; either failing fails
# the step. The test processes mostly wait (FIFOs, signals, timeouts, the binary they start: the fast pass used
# 103 s of CPU in 194 s), so on 2 cores the fast pass runs beside tools/hostile.sh, and the reference pass beside
# the library user's build: about 2.5 minutes less than one after another.
# Stopped (Ctrl-C, a CI timeout's SIGTERM), the step ends the second's processes too (a background job ignores
# SIGINT), prints what it wrote and removes its log.
define beside
	@log=$$(mktemp); ( $(2) ) >$$log 2>&1 & second=$$!; \
	killtree() { for c in $$(pgrep -P $$1 2>/dev/null); do killtree $$c; done; kill -TERM $$1 2>/dev/null; }; \
	trap 'killtree $$second; wait $$second; cat "$$log"; rm -f "$$log"; exit 130' INT TERM; \
	$(1); first=$$?; wait $$second; status=$$?; trap - INT TERM; cat "$$log"; rm -f "$$log"; \
	echo "make test: $(word 1,$(3)) exit $$first, $(word 2,$(3)) exit $$status"; [ "$$first" = 0 ] && [ "$$status" = 0 ]
endef
# The build `swift test` makes (release, testable), then every step on it. The static `make build` is not a
# step: it was compiled and then replaced, about 80 s of a run from a fresh clone.
test: deps
	$(call need_packages,time zsh fish python3 strace acl python3-fusepy)
	$(SWIFT) build $(TEST_FLAGS) -Xswiftc -enable-testing --build-tests
	@echo "make test: the fast pass, and beside it tools/hostile.sh (its cases are printed after the pass)"
	$(call beside,$(SWIFT) test $(TEST_FLAGS) --skip-build,tools/hostile.sh,fast-pass tools/hostile.sh)
	@echo "make test: the library user, and beside it the reference pass (YUV_FORCE_REFERENCE=1, printed after)"
	$(call beside,$(MAKE) --no-print-directory test-library,YUV_FORCE_REFERENCE=1 $(SWIFT) test $(TEST_FLAGS) --skip-build $(REFERENCE_SKIP),test-library reference-pass)
	$(MAKE) --no-print-directory check-fuzz-harnesses

# The fuzz harnesses against the code as it is now (`make fuzz` builds them only when run, so an interface
# change would break them unseen): the C one compiled for syntax and types, the Swift one type-checked against
# the modules `swift test` just built. About 2 s.
check-fuzz-harnesses:
	$(CLANG) -fsyntax-only -Wall -Werror -ISources/CShims/include -ISources/CSIMD/include $$(pkg-config --cflags libpng) \
	  Fuzz/c/fuzz_decode.c
	@mkdir -p $(FUZZ_DIR)
	$(CLANG) -O0 -fsanitize=fuzzer $(FUZZ_C_FLAGS) $(FUZZ_C_SOURCES) $(FUZZ_C_LIBS) -o $(FUZZ_DIR)/fuzz_decode_linked
	$(dir $(CLANG))swiftc -typecheck -swift-version 6 -parse-as-library -I .build/release/Modules \
	  $(foreach m,CSIMD CShims,-Xcc -fmodule-map-file=.build/release/$(m).build/module.modulemap -Xcc -ISources/$(m)/include) \
	  $(foreach m,$(wildcard Sources/C*/module.modulemap),-Xcc -fmodule-map-file=$(m)) Fuzz/Sources/yuvfuzz/Fuzz.swift
	@echo "fuzz harnesses: ok"

# A package that depends on yuvconv's library products (Examples/LibraryUser) builds and converts a photo to the
# bytes yuvref.py makes (its golden CRC): the libraries build without unsafe flags for a dependent.
test-library: deps
	cd Examples/LibraryUser && $(SWIFT) build -c release $(CPU_FLAGS)
	@want=$$(awk -F'\t' '$$1 == "corpus/photos/kodim23.png" && $$2 == "bt709" && $$3 == "full" && $$4 == "nv12" { print $$5 }' Fixtures/golden/images.tsv); \
	got=$$(Examples/LibraryUser/.build/release/LibraryUser Fixtures/corpus/photos/kodim23.png); echo "$$got"; \
	case "$$got" in "768x512 nv12: 589824 bytes, CRC-32 $$want, path RGB"*"program state kept") echo "library user: ok";; \
	  *) echo "library user: want CRC-32 $$want and the program state kept" >&2; exit 1;; esac

# One pass only, fast rows.
test-fast: build
	$(call need_packages,time zsh fish python3)
	$(SWIFT) test $(TEST_FLAGS)

# Converts the bundled photo, prints its memory line and its full memory and quality report.
demo: build
	@mkdir -p .build/demo
	$(BIN) Fixtures/corpus/photos/rocket.jpg -o .build/demo/rocket.nv12 --force
	$(BIN) Fixtures/corpus/photos/rocket.jpg -o .build/demo/rocket.png --force -q
	$(BIN) report Fixtures/corpus/photos/rocket.jpg
	@echo "wrote .build/demo/rocket.nv12 (640x427 NV12) and .build/demo/rocket.png (the same, drawn back as RGB)"

# The whole shared corpus (608 files, ../shared/corpus when present) against its expected outcomes;
# `make test` covers the 558 small ones copied into Fixtures/.
test-corpus: build
	tools/check-corpus.sh $(CORPUS)

# Hostile inputs, outputs and environments: overflowing sizes, FIFOs and endless devices,
# symlinks and hard links as outputs, closed standard streams, signals mid-conversion, non-UTF-8 names.
# Builds every case in a temporary folder; prints PASS/FAIL per case and a closing count line.
test-hostile: build
	$(call need_packages,time acl python3 strace)
	tools/hostile.sh

# Every decodable PNG of the corpus, 6 matrix/range pairs, fast rows and YUV_FORCE_REFERENCE=1, byte for
# byte against tools/yuvref.py, the contract's reference (../shared/corpus when present, else Fixtures/corpus;
# numpy, Pillow and pypng go into .build/venv).
# JPEG=1 adds the JPEGs.
test-exact: build
	$(call need_python,numpy pillow pypng)
	$(VENV_PY) tools/check-exact.py $(CORPUS) $(if $(JPEG),--jpeg)

# The exhaustive chroma proof: every 2x2 block sum (1021^3 per matrix and range), fast rows vs the reference.
prove: deps
	YUV_PROVE=1 $(SWIFT) test $(TEST_FLAGS) --filter ChromaProofTests

# The default build on emulated CPUs this machine is not (qemu-user): plain x86-64, Nehalem, Haswell (AVX2, no
# AVX-512): each picks the tier its cpuid allows and gives this machine's bytes.
test-cpus: build
	$(call need_packages,qemu-user)
	tools/cpus.sh $(BIN)

# Kernel and driver throughput on a 4032x3024 frame against libyuv, measured in the same run.
# libyuv is a benchmark peer only: libyuv-dev is installed here, never needed by the tool.
BENCH_DIR = .build/bench
bench-deps:
	$(call need_packages,$(BUILD_PKGS) libyuv-dev)

$(BENCH_DIR)/libyuv_peer.so: bench/libyuv_peer.c | bench-deps
	@mkdir -p $(BENCH_DIR)
	cc -O2 -shared -fPIC $< -lyuv -o $@

bench: build bench-deps $(BENCH_DIR)/libyuv_peer.so
	.build/release/yuvbench --peer $(BENCH_DIR)/libyuv_peer.so $(BENCH_ARGS)

# Whole conversions of a 12 MP photo against ffmpeg, ImageMagick, djpeg, tjbench -yuv and a bare libpng
# decode, timed in the same run (wall: median of RUNS=7 interleaved rounds; memory: /usr/bin/time -v peak RSS).
E2E_PKGS = ffmpeg imagemagick libjpeg-turbo-progs time
bench-e2e: build
	$(call need_packages,$(E2E_PKGS))
	@mkdir -p $(BENCH_DIR)
	cc -O2 bench/png_decode.c $$(pkg-config --cflags --libs libpng) -o $(BENCH_DIR)/png_decode
	cc -O2 bench/jpeg_decode.c $$(pkg-config --cflags --libs libturbojpeg) -o $(BENCH_DIR)/jpeg_decode
	bench/e2e.sh $(BENCH_DIR)

# What the optional work costs against the same conversion without it, in the same rounds: --report json,
# --metrics (12 MP JPEG and PNG) and colour management (a 12 MP Display P3 JPEG, auto against off).
bench-costs: build
	$(call need_packages,$(E2E_PKGS))
	bench/costs.sh $(BENCH_DIR)

# Same bytes as another revision (BASE, default the previous commit): builds it in .build/base and runs
# tools/compare-builds.sh over CORPUS (default Fixtures/corpus): every image × 6 specs × 4 layouts, Y4M, PNG,
# JPEG, the RGB route and the JSON report's non-timing fields. NEW_ARGS= options for the new build only (e.g.
# "--color-management off" against a build from before colour management).
BASE ?= HEAD~1
compare-builds: build
	rm -rf .build/base && git worktree prune && git worktree add --detach .build/base $(BASE)
	cd .build/base && $(SWIFT) build $(BUILD_FLAGS) --product yuvconv
	cp .build/release/yuvconv .build/yuvconv-compare
	tools/compare-builds.sh .build/base/.build/release/yuvconv .build/yuvconv-compare $(CORPUS)

# The HTML report rendered by headless Chromium at 800, 1200 and 1800 px: the table must fit; screenshots in
# .build/html/ to look at.
test-html: build
	$(call need_packages,chromium)
	tools/check-html.sh

# ffmpeg reads every raw layout and Y4M back with the documented arguments at ≥ 45 dB against the source.
test-interop: build
	$(call need_packages,ffmpeg)
	tools/interop.sh

# Peak memory per kind of source (baseline/progressive JPEG, PNG 8/16-bit, interlaced, very wide, turned,
# standard input), the table behind docs/security.md's bounds.
bench-memory: build
	$(call need_packages,libjpeg-turbo-progs time)
	bench/memory.sh $(BENCH_DIR)

# 200 photos with -j 1 against -j all cores, in the same run; then a batch's peak RSS for 1,000 and 100,000 tiny
# PNGs, plain and with --report json (flat: within 10%). BATCH=speed or BATCH=memory runs one part; COUNTS=,
# RUNS= and YUVCONV=path (another build, for before and after) shape the memory part.
bench-batch: build
	$(call need_packages,$(E2E_PKGS))
	bench/batch.sh $(BENCH_DIR) $(or $(BATCH),all)

# The suite under AddressSanitizer (Swift and C; LIMIT_VM=: lifts the hostile tests' `ulimit -v`, which leaves
# no room for ASan's shadow memory) with UndefinedBehaviorSanitizer on the C target, in a
# separate build folder; the CLI tests run the sanitized binary. Swift has no -sanitize=undefined on Linux:
# its own checks (overflow, bounds, unwrapping) trap in these release builds anyway.
SAN_FLAGS = -Xswiftc -sanitize=address -Xcc -fsanitize=address,undefined -Xcc -fno-sanitize-recover=undefined
test-sanitize: deps
	$(SWIFT) build -c release --scratch-path .build/asan $(SAN_FLAGS)
	LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan.supp UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  YUVCONV_BIN=.build/asan/release/yuvconv LIMIT_VM=: $(SWIFT) test -c release --scratch-path .build/asan $(SAN_FLAGS)

# libFuzzer on the C shims (`FUZZ_C_SOURCES`) (clang, ASan+UBSan) and on the Swift decode → convert → quality path (swiftc
# -sanitize=fuzzer,address), each for FUZZ_SECONDS (default 300), seeded from Fixtures/corpus and Fixtures/colour (its
# LUT-profiled PNG and CMYK JPEG reach LittleCMS's general pipeline and its table of colours), each seed under its
# path's name (copied flat by base name, a fifth of them overwrote one another). Finds are copied
# to Fixtures/fuzz-crashes/ (a regression test converts every file there).
FUZZ_SECONDS ?= 300
FUZZ_DIR = .build/fuzz
CLANG ?= $(shell command -v /opt/swift/usr/bin/clang || command -v clang)
# The C harness and everything it links, in one place for `fuzz` and `check-fuzz-harnesses`: every CShims file but
# the encoder's and every CSIMD file, so a file split off or a row moved between them is never left out (a list of
# three CSIMD files lost the YCbCr rows when the decoder began to call them, and `make fuzz` stopped linking).
FUZZ_C_SOURCES = Fuzz/c/fuzz_decode.c $(filter-out Sources/CShims/yc_encode.c,$(wildcard Sources/CShims/*.c)) \
  $(wildcard Sources/CSIMD/*.c)
FUZZ_C_FLAGS = -ISources/CShims/include -ISources/CSIMD/include $$(pkg-config --cflags libpng)
FUZZ_C_LIBS = -ljpeg $$(pkg-config --libs libpng zlib lcms2) -lm
fuzz: deps
	@mkdir -p $(FUZZ_DIR)/corpus-c $(FUZZ_DIR)/corpus-swift $(FUZZ_DIR)/finds
	$(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined $(FUZZ_C_FLAGS) $(FUZZ_C_SOURCES) $(FUZZ_C_LIBS) -o $(FUZZ_DIR)/fuzz_decode
	cd Fuzz && $(SWIFT) build -c release -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address
	find Fixtures/corpus Fixtures/colour -type f \( -name '*.png' -o -name '*.jp*g' \) -size -64k | \
	  while IFS= read -r f; do cp "$$f" "$(FUZZ_DIR)/corpus-c/$$(printf '%s' "$$f" | tr / _)"; done
	cp $(FUZZ_DIR)/corpus-c/* $(FUZZ_DIR)/corpus-swift/
	-$(FUZZ_DIR)/fuzz_decode $(FUZZ_DIR)/corpus-c -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=20 \
	  -rss_limit_mb=4096 -artifact_prefix=$(FUZZ_DIR)/finds/c- -print_final_stats=1 2>&1 | tail -25 | tee $(FUZZ_DIR)/c.log
	-Fuzz/.build/release/yuvfuzz $(FUZZ_DIR)/corpus-swift -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=20 \
	  -rss_limit_mb=4096 -artifact_prefix=$(FUZZ_DIR)/finds/swift- -print_final_stats=1 2>&1 | tail -25 | tee $(FUZZ_DIR)/swift.log
	@finds=$$(ls $(FUZZ_DIR)/finds 2>/dev/null | wc -l); cp $(FUZZ_DIR)/finds/* Fixtures/fuzz-crashes/ 2>/dev/null || true; \
	  echo "fuzz: $$finds finds (copied to Fixtures/fuzz-crashes/)"

# The direct path's PSNR against the RGB route on photos (numpy in .build/venv; cjpeg and ffmpeg as for bench-e2e).
quality: build
	$(call need_packages,$(E2E_PKGS))
	$(call need_python,numpy)
	$(VENV_PY) bench/quality.py

# --chroma-filter sharp against box: RGB PSNR through a bilinear player (numpy, independent of yuvconv) on the
# photos and a generated saturated-edge picture, and the time of whole conversions (numpy and Pillow in .build/venv).
bench-sharp: build
	$(call need_python,numpy pillow)
	$(VENV_PY) bench/sharp.py

# A float model of the passes: what fewer or more of them, or a closed form, would give (no timing).
bench-sharp-passes: build
	$(call need_python,numpy pillow)
	$(VENV_PY) bench/sharp_passes.py

# The man page is made here from the built binary (`yuvconv --man`, from its option table), never committed.
MAN1 = $(DESTDIR)$(PREFIX)/share/man/man1
install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(MAN1)
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/yuvconv
	$(BIN) --man > .build/yuvconv.1
	install -m 644 .build/yuvconv.1 $(MAN1)/yuvconv.1

clean:
	rm -rf .build
