# Simplexity build. Intermediates in build/, deliverables in dist/.
#   make          dist/: the npm package's files (the ES module, the SIMD and scalar .wasm, the
#                 widgets, the shipped models, the TypeScript declarations, the single-file
#                 bundle) and dist/site/, the static page (not in the package)
#   make test     everything that checks correctness (the README's test command)
#   make bench    speed tables (ratios measured in one run); not part of the tests
#   make bench-attention   attention and model speed, SIMD vs scalar vs native (issue 3)
#   make bench-decode      greedy decoding tokens/s, KV cache vs full recomputation (issue 13)
#   make bench-gpt         the character models: generation chars/s (cache or not), training steps/s, vs seq2seq (issue 23)
#   make rnn-table         the recurrent encoder-decoder's bottleneck: accuracy against source length (issue 24)
#   make rnn-variance      soft, sparse and hard attention: gradient-estimator variance, curves, support (issue 24)
#   make rationales        rationale selections: accuracy, precision / recall against the known rationale (issue 25)
#   make fuzz     a long libFuzzer run (make test does a short one)
#   make serve    build, then serve the site (the book) on 127.0.0.1

# Every recipe line runs in bash with pipefail: a test piped into `tail` fails when the test does.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c

CC      ?= cc
EMCC    ?= emcc
CLANG   ?= clang
NODE    ?= node
WASM_OPT ?= wasm-opt
SIMDE   ?= /usr/include/simde

B := build
D := dist

CORE_SRC := $(wildcard core/src/*.c)
CORE_HDR := $(wildcard core/src/*.h) core/include/simplexity.h
# Every tests/c/test_*.c is one test program; tests/c/ref*.c are the float64 reference
# implementations, linked into every test program.
TEST_MAIN := $(wildcard tests/c/test_*.c)
TEST_SUPPORT := $(wildcard tests/c/ref*.c)
TEST_BINS := $(patsubst tests/c/%.c,$(B)/native/%,$(TEST_MAIN))

WARN := -std=c99 -Wall -Wextra -Wno-unused-function
NATIVE_INC := -Icore/include -Icore/src
# Tests: the same sources, sanitized, SSE lowering of the simd128 intrinsics.
SAN_CFLAGS := $(WARN) $(NATIVE_INC) -O1 -g -msse4.2 -fno-omit-frame-pointer \
              -fsanitize=address,undefined -fno-sanitize-recover=all
# Native benchmark: the same 128-bit width as wasm SIMD.
BENCH_CFLAGS := $(WARN) $(NATIVE_INC) -O3 -msse4.2 -DNDEBUG

# emcc has its own sysroot: give it SIMDe alone through a folder holding one link.
EM_INC := -I$(B)/inc -Icore/include -Icore/src
# Two cores. The full core: every source, every export (wasm/exports-mappings.txt and
# wasm/exports.txt), -O3 (each source its own object: see CORE_OPT below). The mappings core, for the widgets that draw mappings only (no
# attention, model, tasks or training): the mapping sources and wasm/exports-mappings.txt alone,
# compiled for size (-Oz: a simplex plot's rows are short; -DSX_MAPPINGS_CORE leaves out the
# throughput paths that cost kilobytes, simd.h's SX_WIDE_PATHS). Both use emmalloc (the core mallocs
# only a grow-only scratch region and models: dlmalloc's speed buys nothing, its 7 KB do).
EXPORTS_MAP := $(shell sed -e 's/\#.*//' wasm/exports-mappings.txt 2>/dev/null | tr -s ' \n' ' ')
EXPORTS := $(EXPORTS_MAP) $(shell sed -e 's/\#.*//' wasm/exports.txt 2>/dev/null | tr -s ' \n' ' ')
em_exports = -sEXPORTED_FUNCTIONS=$(shell printf '_%s,' $(1) | sed 's/,$$//')
EM_BASE := $(WARN) --no-entry -sSTANDALONE_WASM -sALLOW_MEMORY_GROWTH=1 -sMALLOC=emmalloc \
           -sTOTAL_STACK=1MB -sINITIAL_MEMORY=4MB -sERROR_ON_UNDEFINED_SYMBOLS=1
EM_FLAGS := $(EM_BASE) -O3 $(call em_exports,$(EXPORTS))
# The full core's sources compile one object each (build/wasm-simd/, build/wasm-scalar/: an edit
# recompiles one file), then link with EM_LINK. CORE_OPT, every file's default (a new source's
# too), is -O3 without clang's loop unrolling: its copies of loop bodies (remainder loops of 1-3
# entries, unrolled cold loops) made 33 KB of the SIMD core, for no speed bench/ab.mjs could
# measure, while the kernels that gain from unrolling are unrolled by hand. clang's
# auto-vectoriser stays on, as plain-C loops (layers.c's Adam and layernorm, model.c, the
# backward passes) rely on it. The files in CORE_HAND are vectorised by hand with simd128
# intrinsics: the vectoriser only added vector copies of their scalar tails, so they also go
# without it (3.4 KB). CORE_UNROLLED keeps plain -O3: fusedmax.c (Condat's sweep, not unrolled
# by hand: fusedmax attention ran up to 25% slower without clang's unroller). CORE_SMALL: -Os on the
# models' own code (layers.c, model.c, rnn.c: short loops around matmul.c and attention.c, which
# keep -O3), 8.4 KB less than -O3 (-O3 copied and inlined their loops), for no speed bench/ab.mjs
# --only model could tell apart from noise (median ratio 1.04 over its 8 cases) and identical
# losses; the recurrent model's training steps the same. -Os on the files that only check
# arguments, parse or format takes bytes instead (clang's -Os inlines differently), -Oz on
# layers.c stops its vectoriser.
CORE_OPT := -O3 -fno-unroll-loops
CORE_HAND := softmax sparsemax entmax matmul
CORE_UNROLLED := fusedmax
CORE_SMALL := layers model rnn
CORE_SMALL_OPT := -Os
core_opt = $(if $(filter $(CORE_SMALL),$(1)),$(CORE_SMALL_OPT),$(if $(filter $(CORE_UNROLLED),$(1)),-O3,$(CORE_OPT) $(if $(filter $(CORE_HAND),$(1)),-fno-vectorize -fno-slp-vectorize)))
EM_LINK := --no-entry -sSTANDALONE_WASM -sALLOW_MEMORY_GROWTH=1 -sMALLOC=emmalloc -sTOTAL_STACK=1MB \
           -sINITIAL_MEMORY=4MB -sERROR_ON_UNDEFINED_SYMBOLS=1 -O3 $(call em_exports,$(EXPORTS))
SIMD_OBJ := $(patsubst core/src/%.c,$(B)/wasm-simd/%.o,$(CORE_SRC))
SCALAR_OBJ := $(patsubst core/src/%.c,$(B)/wasm-scalar/%.o,$(CORE_SRC))
EM_FLAGS_MAP := $(EM_BASE) -Oz -DSX_MAPPINGS_CORE $(call em_exports,$(EXPORTS_MAP))
MAP_SRC := $(patsubst %,core/src/%.c,status softmax sparsemax entmax fusedmax oscarmax entropy sigmoid groupmax jacobian)

# web/ is the source tree, one folder per layer: web/lib/ the library (the JS/wasm boundary:
# simplexity.js, mappings.js, loader.js, model.js, blocks.js, explain.js and their modules, the
# declarations), web/widgets/ the elements with their runtime/ and viz/ helpers, web/site/ the
# page, web/models/ the shipped checkpoints. dist/ keeps the package's own layout (package.json
# "files"), dist/site/ that plus the page: tools/layout.mjs holds the one path map between the
# two and copies every file, rewriting the modules' relative specifiers (and fails on one it
# cannot map). $(LAYOUT) stands for its copy into dist/.
WEB_SRC := $(shell find web -type f)
WASM := $(D)/simplexity-simd.wasm $(D)/simplexity.wasm $(D)/simplexity-mappings-simd.wasm $(D)/simplexity-mappings.wasm
LAYOUT := $(D)/.layout
DIST := $(WASM) $(LAYOUT) $(D)/simplexity-widgets.js

.PHONY: FORCE mutants explain-findings all site site-size tools-test test test-suites untracked-before untracked-check serve-site fuzz-selftest fuzz-merge commands-smoke test-c test-js test-types test-browser test-package check-simd fuzz fuzz-short bench bench-attention bench-decode bench-gpt serve clean tools

# The deliverables: the package's files and the static site.
all: tools $(DIST) site

# The static site: the package's files plus the book's pages (index.html, the map, and a page per
# chapter) and their scripts, ready for any static host. The blog post example goes one folder
# down (site/examples/), so it loads the widgets from another folder.
# The site's JavaScript is then minified in place, module by module (tools/minify.mjs): web/
# holds the sources, dist/site/ what ships.
SITE := $(D)/site
site: $(DIST) examples/blog-post.html
	@mkdir -p $(SITE)/examples
	cp $(WASM) $(D)/simplexity-widgets.js $(SITE)/
	$(NODE) tools/layout.mjs --site --out $(SITE)
	cp examples/blog-post.html $(SITE)/examples/
	$(NODE) tools/minify.mjs --site $(SITE)

# The single-file build (every widget, the library and the full core's SIMD build inlined,
# deflated) for hosts that cannot serve .wasm files: built from dist/'s own files, beside which it
# fetches models/ (and, on an engine without SIMD, the scalar builds: tools/bundle.mjs says why).
# It is built from the package's layout unminified, in $(BUNDLE_SRC) (esbuild minifies the whole
# bundle; dist/'s modules, minified one by one, keep their functions' names, which would cost
# the bundle 32 KB).
BUNDLE_SRC := $(B)/bundle-src
$(D)/simplexity-widgets.js: tools/bundle.mjs tools/minify.mjs tools/inflate.js tools/layout.mjs package.json $(D)/simplexity-simd.wasm $(WEB_SRC)
	$(NODE) tools/layout.mjs --out $(BUNDLE_SRC)
	cp $(D)/simplexity-simd.wasm $(BUNDLE_SRC)/
	$(NODE) tools/bundle.mjs --site $(BUNDLE_SRC) --out $@

# Transfer size of each page of the book at load (the map, each chapter) and of the widgets
# alone, gzipped.
site-size: site
	$(NODE) tests/browser/sizes.mjs

# Say which package to install instead of failing obscurely.
tools:
	@command -v $(EMCC) >/dev/null || { echo "make: emcc not found: apt-get install emscripten" >&2; exit 1; }
	@test -f $(SIMDE)/wasm/simd128.h || { echo "make: SIMDe not found: apt-get install libsimde-dev" >&2; exit 1; }
	@command -v wasm-dis >/dev/null || { echo "make: wasm-dis not found: apt-get install binaryen" >&2; exit 1; }
	@command -v $(WASM_OPT) >/dev/null || { echo "make: wasm-opt not found: apt-get install binaryen" >&2; exit 1; }
	@test -d node_modules/esbuild || { echo "make: node_modules/esbuild missing (single-file widget bundle): npm ci" >&2; exit 1; }
	@test -d node_modules/typescript || { echo "make: node_modules/typescript missing (tools/layout.mjs parses the modules with it): npm ci" >&2; exit 1; }

# The tests need more than the build: say what to install for each.
tools-test:
	@command -v $(CLANG) >/dev/null || { echo "make: clang not found (libFuzzer target): apt-get install clang libclang-rt-14-dev" >&2; exit 1; }
	@test -n "$$(find /usr/lib/llvm-*/lib/clang -name 'libclang_rt.fuzzer*.a' 2>/dev/null | head -n 1)" || { echo "make: libFuzzer runtime not found: apt-get install libclang-rt-14-dev" >&2; exit 1; }
	@test -x /usr/bin/chromium || { echo "make: /usr/bin/chromium not found (browser tests): apt-get install chromium" >&2; exit 1; }
	@test -d node_modules/playwright-core || { echo "make: node_modules/playwright-core missing (browser tests): npm ci" >&2; exit 1; }

$(B)/inc/simde:
	@mkdir -p $(B)/inc
	ln -sfn $(SIMDE) $@

# SIMD build: simd128 + bulk memory (fast memcpy). binaryen's -O3 run once more after emcc's
# takes 0.75 KB off. The core stays under webpack's 244 KiB asset hint (tests/browser/sizes.mjs).
# The objects' flags, in a file rewritten only when they change, so that a change recompiles them.
WASM_FLAGS_KEY := $(WARN) $(EM_INC) | $(CORE_OPT) | $(CORE_HAND) | $(CORE_UNROLLED) | $(CORE_SMALL) $(CORE_SMALL_OPT)
$(B)/wasm-flags.txt: FORCE
	@mkdir -p $(B)
	@echo '$(WASM_FLAGS_KEY)' | cmp -s - $@ || echo '$(WASM_FLAGS_KEY)' > $@
FORCE:

$(B)/wasm-simd/%.o: core/src/%.c $(CORE_HDR) $(B)/wasm-flags.txt | $(B)/inc/simde
	@mkdir -p $(@D)
	$(EMCC) $(WARN) $(call core_opt,$*) -msimd128 -mbulk-memory $(EM_INC) -c $< -o $@

$(D)/simplexity-simd.wasm: $(SIMD_OBJ) wasm/exports.txt wasm/exports-mappings.txt
	@mkdir -p $(D)
	$(EMCC) $(EM_LINK) -msimd128 -mbulk-memory $(SIMD_OBJ) -o $@
	$(WASM_OPT) --mvp-features --enable-simd --enable-bulk-memory -O3 $@ -o $@

# Scalar build: the same source, SIMDe lowers the intrinsics to scalar code; MVP wasm only.
$(B)/wasm-scalar/%.o: core/src/%.c $(CORE_HDR) $(B)/wasm-flags.txt | $(B)/inc/simde
	@mkdir -p $(@D)
	$(EMCC) $(WARN) $(call core_opt,$*) -Wno-pass-failed $(EM_INC) -c $< -o $@

$(D)/simplexity.wasm: $(SCALAR_OBJ) wasm/exports.txt wasm/exports-mappings.txt
	@mkdir -p $(D)
	$(EMCC) $(EM_LINK) $(SCALAR_OBJ) -o $@

# The mappings core, SIMD and scalar. binaryen's size passes are then run again until they stop
# paying (--converge: 0.5% smaller gzipped; emcc runs them once).
$(D)/simplexity-mappings-simd.wasm: $(MAP_SRC) $(CORE_HDR) wasm/exports-mappings.txt | $(B)/inc/simde
	@mkdir -p $(D)
	$(EMCC) $(EM_FLAGS_MAP) -msimd128 -mbulk-memory $(EM_INC) $(MAP_SRC) -o $@
	$(WASM_OPT) --mvp-features --enable-simd --enable-bulk-memory -Oz --converge $@ -o $@

$(D)/simplexity-mappings.wasm: $(MAP_SRC) $(CORE_HDR) wasm/exports-mappings.txt | $(B)/inc/simde
	@mkdir -p $(D)
	$(EMCC) $(EM_FLAGS_MAP) -Wno-pass-failed $(EM_INC) $(MAP_SRC) -o $@
	$(WASM_OPT) --mvp-features -Oz --converge $@ -o $@

# The package's files from web/: the modules, the declarations and the shipped models, each
# where tools/layout.mjs's map puts it, relative specifiers rewritten for that place, the modules
# minified one by one (each names its source in web/ in a header line; the .d.ts stay as written).
$(LAYOUT): tools/layout.mjs tools/minify.mjs $(WEB_SRC)
	@mkdir -p $(D)
	$(NODE) tools/layout.mjs --out $(D) --minify
	@touch $@

# Fails if SIMD silently disappears from the SIMD build, or leaks into the scalar one.
check-simd: $(WASM)
	@n=$$(wasm-dis $(D)/simplexity-simd.wasm | grep -c 'f32x4'); \
	 s=$$(wasm-dis $(D)/simplexity.wasm | grep -c 'v128\|f32x4\|i32x4'); \
	 echo "check-simd: $$n f32x4 instructions in the SIMD build, $$s SIMD instructions in the scalar build"; \
	 test $$n -gt 100 && test $$s -eq 0
	@n=$$(wasm-dis $(D)/simplexity-mappings-simd.wasm | grep -c 'f32x4'); \
	 s=$$(wasm-dis $(D)/simplexity-mappings.wasm | grep -c 'v128\|f32x4\|i32x4'); \
	 echo "check-simd: $$n f32x4 instructions in the mappings core's SIMD build, $$s SIMD instructions in its scalar build"; \
	 test $$n -gt 50 && test $$s -eq 0

# Native tests: every tests/c/test_*.c, linked with the core and the shared support files.
# The core and the test support are compiled once (sanitized objects in build/native/obj/), then
# linked into each program: a tenth of the compile time of building every source per program.
SAN_OBJ := $(patsubst core/src/%.c,$(B)/native/obj/%.o,$(CORE_SRC)) \
           $(patsubst tests/c/%.c,$(B)/native/obj/%.o,$(TEST_SUPPORT))

$(B)/native/obj/%.o: core/src/%.c $(CORE_HDR) | $(B)/inc/simde
	@mkdir -p $(@D)
	$(CC) $(SAN_CFLAGS) -I$(B)/inc -c $< -o $@

$(B)/native/obj/%.o: tests/c/%.c $(CORE_HDR) $(wildcard tests/c/*.h) | $(B)/inc/simde
	@mkdir -p $(@D)
	$(CC) $(SAN_CFLAGS) -I$(B)/inc -Itests/c -c $< -o $@

$(B)/native/%: tests/c/%.c $(SAN_OBJ) $(CORE_HDR) tests/c/check.h tests/c/prng.h
	@mkdir -p $(B)/native
	$(CC) $(SAN_CFLAGS) -I$(B)/inc -Itests/c $< $(SAN_OBJ) -o $@ -lm

test-c: $(TEST_BINS)
	@set -e; for t in $(TEST_BINS); do echo "== $$t"; $$t; done

# libFuzzer: every entry point on arbitrary bytes.
$(B)/fuzz/fuzz_core: tests/fuzz/fuzz_core.c $(CORE_SRC) $(CORE_HDR) | $(B)/inc/simde
	@mkdir -p $(B)/fuzz
	$(CLANG) $(WARN) $(NATIVE_INC) -I$(B)/inc -O1 -g -msse4.2 -fsanitize=fuzzer,address,undefined \
	  -fno-sanitize-recover=all $< $(CORE_SRC) -o $@ -lm

# The short run of make test: from the committed corpus (tests/fuzz/corpus/, and the inputs of
# past crashes, tests/fuzz/regressions/, both read only; new inputs go to build/fuzz/corpus/), a
# fresh seed each run (FUZZ_SEED=N repeats one: the seed is printed). Quiet on success; on a crash, a timeout or a leak it prints the fuzzer's report and
# fails, with the input saved under build/fuzz/artifacts/ (never in the tree).
FUZZ_RUNS ?= 200000
FUZZ_SEED ?= 0
FUZZ_BIN ?= $(B)/fuzz/fuzz_core
FUZZ_DIR ?= $(B)/fuzz
FUZZ_EXTRA ?=
fuzz-short: $(FUZZ_BIN)
	@mkdir -p $(FUZZ_DIR)/corpus $(FUZZ_DIR)/artifacts
	@echo "fuzz-short: $(FUZZ_RUNS) runs from tests/fuzz/corpus/ and regressions/ ($$(find tests/fuzz/corpus tests/fuzz/regressions -type f | wc -l) inputs) $(FUZZ_EXTRA)"
	@$(FUZZ_BIN) -runs=$(FUZZ_RUNS) -max_len=2048 -seed=$(FUZZ_SEED) -timeout=20 \
	  -artifact_prefix=$(FUZZ_DIR)/artifacts/ $(FUZZ_DIR)/corpus tests/fuzz/corpus tests/fuzz/regressions $(FUZZ_EXTRA) \
	  > $(FUZZ_DIR)/short.log 2>&1; st=$$?; \
	 grep -m1 'Seed:' $(FUZZ_DIR)/short.log; \
	 if [ $$st -ne 0 ]; then tail -n 40 $(FUZZ_DIR)/short.log; \
	   echo "fuzz-short: the fuzz target failed (exit $$st); the input is in $(FUZZ_DIR)/artifacts/" >&2; exit 1; fi; \
	 tail -n 2 $(FUZZ_DIR)/short.log

# The test of fuzz-short: a target built with -DFUZZ_SELFTEST traps on one known input
# (tests/fuzz/selftest/); fuzz-short given that input must fail, say so, and keep the input under
# build/, not in the tree. Part of make test.
$(B)/fuzz/fuzz_selftest: tests/fuzz/fuzz_core.c $(CORE_SRC) $(CORE_HDR) | $(B)/inc/simde
	@mkdir -p $(B)/fuzz
	$(CLANG) $(WARN) $(NATIVE_INC) -I$(B)/inc -O1 -g -msse4.2 -fsanitize=fuzzer,address,undefined \
	  -fno-sanitize-recover=all -DFUZZ_SELFTEST $< $(CORE_SRC) -o $@ -lm

fuzz-selftest: $(B)/fuzz/fuzz_selftest
	@rm -rf $(B)/fuzz-selftest
	@$(MAKE) --no-print-directory fuzz-short FUZZ_BIN=$(B)/fuzz/fuzz_selftest FUZZ_DIR=$(B)/fuzz-selftest \
	   FUZZ_RUNS=100 FUZZ_EXTRA=tests/fuzz/selftest > $(B)/fuzz-selftest.log 2>&1; st=$$?; \
	 if [ $$st -eq 0 ]; then cat $(B)/fuzz-selftest.log; \
	   echo "fuzz-selftest: make fuzz-short exited 0 on an input that traps the target" >&2; exit 1; fi; \
	 grep -q 'deadly signal' $(B)/fuzz-selftest.log && grep -q 'fuzz-short: the fuzz target failed' $(B)/fuzz-selftest.log \
	   || { cat $(B)/fuzz-selftest.log; echo "fuzz-selftest: fuzz-short failed, but not for the trap" >&2; exit 1; }; \
	 ls $(B)/fuzz-selftest/artifacts/crash-* > /dev/null 2>&1 \
	   || { echo "fuzz-selftest: no crash input under $(B)/fuzz-selftest/artifacts/" >&2; exit 1; }
	@echo "fuzz-selftest: make fuzz-short fails on an input that traps the target and keeps it under build/"

# Ten minutes of fuzzing, from the committed corpus and what earlier runs found (build/fuzz/corpus/).
fuzz: $(B)/fuzz/fuzz_core
	@mkdir -p $(B)/fuzz/corpus $(B)/fuzz/artifacts
	$(B)/fuzz/fuzz_core -max_total_time=600 -max_len=4096 -artifact_prefix=$(B)/fuzz/artifacts/ \
	  $(B)/fuzz/corpus tests/fuzz/corpus tests/fuzz/regressions

# Folds what a fuzz run found into the committed corpus, minimised: a small set of inputs with the
# same coverage is kept (libFuzzer's -set_cover_merge=1); tests/fuzz/regressions/ is left as it
# is. Run it after `make fuzz`, then commit tests/fuzz/corpus/.
fuzz-merge: $(B)/fuzz/fuzz_core
	@mkdir -p $(B)/fuzz/merged
	rm -rf $(B)/fuzz/merged/*
	$(B)/fuzz/fuzz_core -set_cover_merge=1 -max_len=4096 $(B)/fuzz/merged tests/fuzz/corpus $(B)/fuzz/corpus
	rm -f tests/fuzz/corpus/*
	cp $(B)/fuzz/merged/* tests/fuzz/corpus/
	@echo "fuzz-merge: $$(ls tests/fuzz/corpus | wc -l) inputs in tests/fuzz/corpus/"

# node --test against both wasm builds.
test-js: all text
	$(NODE) --test tests/js/

# The hand-written declarations, type-checked (strict): tests/types/api.ts uses the whole API as
# the README does, importing "simplexity" through package.json's "exports", i.e.
# dist/simplexity.d.ts; its @ts-expect-error lines are misuses they must reject.
# (tests/js/declarations.test.mjs checks the declarations against the JS.)
test-types: $(LAYOUT)
	@test -x node_modules/.bin/tsc || { echo "make: node_modules/.bin/tsc missing (typescript, the type test): npm ci" >&2; exit 1; }
	node_modules/.bin/tsc -p tests/types

# The loader and the page in real Chromium.
test-browser: all
	$(NODE) tests/browser/run.mjs
	$(NODE) tests/browser/cores.mjs
	$(NODE) tests/browser/page.mjs
	$(NODE) tests/browser/book.mjs
	$(NODE) tests/browser/phone.mjs
	$(NODE) tests/browser/drawings.mjs
	$(NODE) tests/browser/span-pooling.mjs
	$(NODE) tests/browser/loss.mjs
	$(NODE) tests/browser/decode-outputs.mjs
	$(NODE) tests/browser/chain.mjs
	$(NODE) tests/browser/write.mjs
	$(NODE) tests/browser/outputs-lazy.mjs
	$(NODE) tests/browser/write-tune.mjs
	$(NODE) tests/browser/recurrent.mjs
	$(NODE) tests/browser/bottleneck.mjs
	$(NODE) tests/browser/rationale.mjs
	$(NODE) tests/browser/hard.mjs
	$(NODE) tests/browser/jacobian.mjs
	$(NODE) tests/browser/threshold.mjs
	$(NODE) tests/browser/fused-steps.mjs
	$(NODE) tests/browser/regularized.mjs
	$(NODE) tests/browser/patterns.mjs
	$(NODE) tests/browser/scores.mjs
	$(NODE) tests/browser/positions.mjs
	$(NODE) tests/browser/transformer.mjs
	$(NODE) tests/browser/attention-layout.mjs
	$(NODE) tests/browser/decode.mjs
	$(NODE) tests/browser/explain.mjs
	$(NODE) tests/browser/heatmap.mjs
	$(NODE) tests/browser/structured-models.mjs
	$(NODE) tests/browser/keep-model.mjs
	$(NODE) tests/browser/readme.mjs
	$(NODE) tests/browser/single-file.mjs
	$(NODE) tests/browser/a11y.mjs
	$(NODE) tests/browser/hostile.mjs
	$(NODE) tests/browser/keyboard.mjs
	$(NODE) tests/browser/url-state.mjs
	$(NODE) tests/browser/simplex-phone.mjs
	$(NODE) tests/browser/responsive.mjs
	$(NODE) tests/browser/longtasks.mjs

# The npm package as users get it: `npm pack`, the tarball installed into one small app per
# toolchain (tests/package/apps/: Vite build and dev server, webpack, Rollup, esbuild, Parcel,
# VitePress, a plain <script type="module"> page, Node ESM / require / SSR import), each built with
# the real tool (devDependencies) in build/package/, opened in Chromium and checked; and the
# README's toolchain config blocks against those apps' files.
test-package: all
	@test -d node_modules/vite -a -d node_modules/webpack -a -d node_modules/parcel -a -d node_modules/vitepress || { echo "make: bundlers missing from node_modules (package tests): npm ci" >&2; exit 1; }
	$(NODE) tests/package/run.mjs

# The README's other commands, each run once, briefly, so none of them can rot: the two
# benchmarks (one short round; their figures mean nothing at this length and are not checked:
# speed targets live in `make bench`), the transfer sizes, and the in-browser training timer on
# its quickest model (it fails if the model does not reach 99%, or on a page error). The bench
# runs write their tables and output into build/bench/smoke/, so the figures of `make bench` and
# `make bench-attention` in build/bench/*.md are left as they were. But their checks count: a
# bench exits non-zero when an engine's output disagrees with its reference (run.mjs: every
# mapping against plain.js and native; attention.mjs: the wasm builds against native; long.mjs:
# the tiled path against the map path; decode.mjs and gpt.mjs: cached against full decoding; flat.mjs: against
# its float64 reference; entmax_passes: outputs on the simplex); quiet on
# success, a failing command's saved output (stdout and stderr) is printed and make stops.
commands-smoke: all $(B)/bench/bench_native $(B)/bench/bench_attention $(B)/bench/peak-simd.wasm $(B)/bench/entmax_passes
	@mkdir -p $(B)/bench/smoke
	$(NODE) bench/run.mjs --quick --rounds 1 --ms 5 --n 3,64 --out $(B)/bench/smoke > $(B)/bench/smoke/run.txt 2>&1 || { cat $(B)/bench/smoke/run.txt; exit 1; }
	$(NODE) bench/backward.mjs --quick --n 64 > $(B)/bench/smoke/backward.txt 2>&1 || { cat $(B)/bench/smoke/backward.txt; exit 1; }
	$(NODE) bench/attention.mjs --quick --rounds 1 --ms 5 --out $(B)/bench/smoke > $(B)/bench/smoke/attention.txt 2>&1 || { cat $(B)/bench/smoke/attention.txt; exit 1; }
	$(NODE) bench/long.mjs --quick --out $(B)/bench/smoke > $(B)/bench/smoke/long.txt 2>&1 || { cat $(B)/bench/smoke/long.txt; exit 1; }
	$(NODE) bench/flat.mjs --quick --ms 5 > $(B)/bench/smoke/flat.txt 2>&1 || { cat $(B)/bench/smoke/flat.txt; exit 1; }
	$(NODE) bench/train-alpha.mjs --quick --steps 5 --ms 20 > $(B)/bench/smoke/train-alpha.txt 2>&1 || { cat $(B)/bench/smoke/train-alpha.txt; exit 1; }
	$(B)/bench/entmax_passes --ms 5 > $(B)/bench/smoke/entmax-passes.txt 2>&1 || { cat $(B)/bench/smoke/entmax-passes.txt; exit 1; }
	$(NODE) tests/browser/sizes.mjs --check > $(B)/site-size.txt || { cat $(B)/site-size.txt; exit 1; }
	$(NODE) tests/browser/train-time.mjs date-softmax
	$(NODE) bench/decode.mjs --rounds 1 --ms 5 > $(B)/bench/smoke/decode.txt 2>&1 || { cat $(B)/bench/smoke/decode.txt; exit 1; }
	$(NODE) tools/explain-findings.mjs --count 3 --only reverse-softmax,date-entmax15 > $(B)/bench/smoke/findings.md || { cat $(B)/bench/smoke/findings.md; exit 1; }
	$(MAKE) --no-print-directory $(B)/tools/train
	i=0; for v in "none" "additive --map sparsemax" "hard --estimator gumbel"; do i=$$((i + 1)); \
	  $(B)/tools/train --arch rnn --task reverse --attention $$v --max-steps 20 --eval 10 --val 40 --test 80 --quiet \
	  > $(B)/bench/smoke/rnn-$$i.json || { echo "make rnn-table's trainer failed ($$v)" >&2; exit 1; }; done
	$(NODE) tools/rnn-table.mjs $(B)/bench/smoke/rnn-1.json $(B)/bench/smoke/rnn-2.json $(B)/bench/smoke/rnn-3.json > $(B)/bench/smoke/rnn-table.md
	$(MAKE) --no-print-directory $(B)/tools/rnn-variance
	$(B)/tools/rnn-variance --steps 20 --mid 10 --total 40 --draws 8 --batch 8 --val 40 --quiet \
	  --shipped web/models/reverse-rnn-hard-straight.sxrn > $(B)/bench/smoke/rnn-variance.json
	$(NODE) tools/rnn-variance.mjs --json $(B)/bench/smoke/rnn-variance-figures.json $(B)/bench/smoke/rnn-variance.json > $(B)/bench/smoke/rnn-variance.md
	$(MAKE) --no-print-directory $(B)/tools/rationales
	$(B)/tools/rationales --seeds 1 --steps 20 --test 100 --quiet > $(B)/bench/smoke/rationales.jsonl
	$(NODE) tools/rationales.mjs $(B)/bench/smoke/rationales.jsonl > $(B)/bench/smoke/rationales.md
	$(MAKE) --no-print-directory text $(B)/tools/text-baseline
	$(B)/tools/text-baseline --dir $(TEXT) --orders 3 --json $(B)/bench/smoke/baseline.json > /dev/null
	for k in $(TEXT_KINDS); do \
	  $(B)/tools/train --arch gpt --kind $$k --dir $(TEXT) --steps 10 --batch 4 --context 16 --d-model 16 --heads 2 \
	    --layers 1 --d-ff 32 --quiet > $(B)/bench/smoke/devil-$$k.json || { echo "make text-models' trainer failed ($$k)" >&2; exit 1; }; done
	$(B)/tools/train --arch gpt --kind sparsemax-out --dir $(TEXT) --steps 10 --batch 4 --context 16 --d-model 16 --heads 2 \
	  --layers 1 --d-ff 32 --quiet | grep -q '"output":"sparsemax"' || { echo "the trainer's sparsemax-out kind failed" >&2; exit 1; }
	{ echo '['; for k in $(TEXT_KINDS); do cat $(B)/bench/smoke/devil-$$k.json; done | sed '$$!s/$$/,/'; echo ']'; } \
	  > $(B)/bench/smoke/text-summary.json
	$(NODE) tools/text/models-table.mjs --summary $(B)/bench/smoke/text-summary.json --baseline $(B)/bench/smoke/baseline.json \
	  --md $(B)/bench/smoke/text-models.md > /dev/null
	$(MAKE) --no-print-directory $(B)/bench/bench_gpt
	$(NODE) bench/gpt.mjs --rounds 1 --ms 5 --out $(B)/bench/smoke > $(B)/bench/smoke/gpt.txt 2>&1 || { cat $(B)/bench/smoke/gpt.txt; exit 1; }
	@echo "commands-smoke: make bench, make bench-attention, make bench-decode, make bench-gpt, make explain-findings, make rnn-table (20 steps), make rnn-variance (20 steps, 8 draws), make rationales (20 steps), make text-models (10 steps), make site-size and train-time.mjs run"

# The README's test command: installs what is missing (tools/setup.sh: Debian packages when run
# as root or with sudo, npm ci when node_modules is missing or stale), then every suite, in a
# make that reads this file again with the tools in place. The run must leave no new file in the
# tree (a fuzzer's crash input, a screenshot, a tarball): untracked-check compares git's list of
# untracked files with the one taken before.
test:
	@bash tools/setup.sh test
	@$(MAKE) --no-print-directory test-suites

test-suites: untracked-before all tools-test check-simd test-c fuzz-selftest fuzz-short models-check text-check test-js test-types \
             test-browser test-package commands-smoke untracked-check
	@echo "make test: all suites passed"

untracked-before:
	@mkdir -p $(B)
	@git ls-files --others --exclude-standard 2>/dev/null | sort > $(B)/untracked-before.txt || true

untracked-check:
	@git ls-files --others --exclude-standard 2>/dev/null | sort > $(B)/untracked-after.txt || true
	@new=$$(comm -13 $(B)/untracked-before.txt $(B)/untracked-after.txt); \
	 if [ -n "$$new" ]; then echo "make test: these files appeared in the tree:" >&2; echo "$$new" >&2; exit 1; fi
	@echo "untracked-check: no new file in the tree"

# A test of the tests (not part of make test: about half an hour): each curated breaking change of
# tests/mutants.mjs (a threshold, a mask, an option forwarded, an argument check, a drawn element,
# the test machinery's own exits) applied to a copy of the tree in build/mutants/, with the suites
# that should catch it; prints the survivors and fails if there are any. ONLY=id,id runs a few.
mutants: all
	$(NODE) tools/mutants.mjs $(if $(ONLY),--only $(ONLY))

$(B)/bench/bench_native: bench/bench_native.c bench/inputs.h $(CORE_SRC) $(CORE_HDR) | $(B)/inc/simde
	@mkdir -p $(B)/bench
	$(CC) $(BENCH_CFLAGS) -I$(B)/inc $< $(CORE_SRC) -o $@ -lm

# The general-alpha entmax solver's passes per row per input family (issue 26): the core built
# with -DSX_COUNT_PASSES, which only this bench binary has.
$(B)/bench/entmax_passes: bench/entmax_passes.c bench/inputs.h $(CORE_SRC) $(CORE_HDR) | $(B)/inc/simde
	@mkdir -p $(B)/bench
	$(CC) $(BENCH_CFLAGS) -DSX_COUNT_PASSES -I$(B)/inc $< $(CORE_SRC) -o $@ -lm

bench: all $(B)/bench/bench_native $(B)/bench/entmax_passes
	$(NODE) bench/run.mjs
	$(NODE) bench/backward.mjs
	$(B)/bench/entmax_passes

# Attention and model speed (issue 3): attention() per mapping at n = 128, 512 and the shipped
# model's forward tokens/s and train steps/s, SIMD vs scalar wasm vs native, with the mul+add
# peak probe (bench/peak.c) that relates the times to the reference machine's; then long sequences
# (issue 14, bench/long.mjs): the tiled path against the map path, tfjs and onnxruntime-web,
# n = 1024 ... 16384; alpha-entmax attention on flat score rows against softmax attention (issue 26,
# bench/flat.mjs: exit 1 on a mismatch with its float64 reference) and the learned-alpha models'
# training steps/s at initialisation and after training (bench/train-alpha.mjs). Not part of the tests.
$(B)/bench/bench_attention: bench/bench_attention.c bench/measure.h bench/inputs.h bench/peak.c $(CORE_SRC) $(CORE_HDR) | $(B)/inc/simde
	@mkdir -p $(B)/bench
	$(CC) $(BENCH_CFLAGS) -I$(B)/inc bench/bench_attention.c bench/peak.c $(CORE_SRC) -o $@ -lm

$(B)/bench/peak-simd.wasm: bench/peak.c | $(B)/inc/simde
	@mkdir -p $(B)/bench
	$(EMCC) -O3 -msimd128 -I$(B)/inc bench/peak.c --no-entry -sSTANDALONE_WASM -o $@

bench-attention: all $(B)/bench/bench_attention $(B)/bench/peak-simd.wasm
	$(NODE) bench/attention.mjs
	$(NODE) bench/flat.mjs
	$(NODE) bench/train-alpha.mjs
	$(NODE) bench/long.mjs

# Greedy decoding tokens/s with the KV cache vs the full recomputation (issue 13), SIMD and
# scalar wasm, the shipped model and max_len 32 / 128 (the O(t) vs O(t^2) steps). Not part of the tests.
bench-decode: all
	$(NODE) bench/decode.mjs

# The character models' speed (issue 23, item 5): generation chars/s with the KV cache and
# without it (the full forward over the prefix for every character) and training steps/s, native
# (bench/bench_gpt.c) and SIMD wasm through the JS API (TextModel), for each shipped devil model,
# as ratios against the seq2seq model (reverse-alpha) measured in the same run (bench/gpt.mjs);
# writes build/bench/gpt.md and the README's bench-gpt block. About a minute. Not part of the tests.
$(B)/bench/bench_gpt: bench/bench_gpt.c bench/measure.h tools/text/split.c tools/text/split.h tools/text/vocab.h $(CORE_SRC) $(CORE_HDR) | $(B)/inc/simde
	@mkdir -p $(B)/bench
	$(CC) $(BENCH_CFLAGS) -I$(B)/inc -Itools/text bench/bench_gpt.c tools/text/split.c $(CORE_SRC) -o $@ -lm

bench-gpt: all text $(B)/bench/bench_gpt
	$(NODE) bench/gpt.mjs --out $(B)/bench
	$(NODE) tools/text/readme-table.mjs --table $(B)/bench/gpt.md --readme README.md --block bench-gpt

# Build, then serve the site on 127.0.0.1 (PORT=8081 make serve to change the port).
serve:
	@bash tools/setup.sh serve
	@$(MAKE) --no-print-directory serve-site

serve-site: all
	$(NODE) web/site/serve.mjs --root $(SITE)

clean:
	rm -rf $(B) $(D)

# ---------------------------------------------------------------- models (issue 3)
# build/tools/train trains one (task, attention kind) natively and deterministically and writes
# its checkpoint in float16 (format version 2; its JSON line measures the model as loaded back
# from those bytes); `make models` trains every pair into build/models/<task>-<kind>.sxm, then
# copies them to web/models/ and writes web/models/summary.json (with what each output layer does
# on the test slice, through the library: tools/output-stats.mjs) and the README table. Not part
# of `make test`. The committed web/models/ files have no rule of their own, so nothing else
# (the site, a fresh clone's build) ever retrains them behind your back.
MODEL_TASKS := reverse sort after_marker date
MODEL_KINDS := softmax entmax15 alpha alpha-span entmax15-out sparsemax-out
# Structured attention (issue 25, item 2): fusedmax and oscarmax in every layer, on the two tasks
# whose cross-attention has a contiguous target (after_marker's suffix, the date's month word).
MODEL_STRUCTURED := $(foreach t,after_marker date,$(t)-fusedmax $(t)-oscarmax)
MODEL_STEMS := $(foreach t,$(MODEL_TASKS),$(foreach k,$(MODEL_KINDS),$(t)-$(k))) $(MODEL_STRUCTURED)
MODEL_BUILT := $(patsubst %,$(B)/models/%.sxm,$(MODEL_STEMS))
# Per-run trainer flags (the shipped config); see tools/train.c for the options.
MODEL_FLAGS ?=

.PHONY: models models-rnn models-check

$(B)/tools/train: tools/train.c tools/train-rnn.c tools/train-gpt.c tools/text/split.c tools/text/split.h tools/text/vocab.h $(CORE_SRC) $(CORE_HDR) | $(B)/inc/simde
	@mkdir -p $(B)/tools
	$(CC) $(BENCH_CFLAGS) -I$(B)/inc -Itools/text $< tools/train-rnn.c tools/train-gpt.c tools/text/split.c $(CORE_SRC) -o $@ -lm

# One checkpoint and its JSON line; the stem is <task>-<kind> (kinds may contain '-').
$(B)/models/%.sxm: $(B)/tools/train
	@mkdir -p $(B)/models
	stem=$*; $(B)/tools/train --task $${stem%%-*} --kind $${stem#*-} $(MODEL_FLAGS) --out $@ \
	  > $(B)/models/$*.json

# The shipped recurrent models (issue 24): five of `make rnn-table`'s runs on the reverse task
# (the default RNN_FLAGS), their float16 checkpoints as web/models/reverse-rnn-<variant>.sxrn.
RNN_SHIPPED := none additive-softmax additive-sparsemax additive-entmax15 hard-straight

# `make models-rnn` ships them alone.
models-rnn: $(patsubst %,$(B)/rnn/%.json,$(RNN_SHIPPED))
	for v in $(RNN_SHIPPED); do cp $(B)/rnn/$$v.sxrn web/models/reverse-rnn-$$v.sxrn; done

models: $(MODEL_BUILT) models-rnn text-models all
	cp $(MODEL_BUILT) web/models/
	{ echo '['; for s in $(MODEL_STEMS); do sed '$$!d' $(B)/models/$$s.json; done | sed '$$!s/$$/,/'; \
	  echo ']'; } > web/models/summary.json
	$(NODE) tools/output-stats.mjs web/models/summary.json
	$(NODE) tools/summary.mjs --readme README.md

# "Is attention explanation?" on every shipped model (about 6 minutes): rewrites the README's table
# (tests/js/readme-findings.test.mjs recomputes two of its rows).
explain-findings: all
	$(NODE) tools/explain-findings.mjs --count 200 --readme README.md

# The bottleneck table (issue 24, item 2): the recurrent encoder-decoder trained natively on the
# reverse task without attention, with additive attention and with hard attention (one run each,
# RNN_FLAGS for the trainer), then held-out exact accuracy against source length, written to
# build/rnn/table.md and into the README (tools/rnn-table.mjs). Not part of make test. A variant is
# <attention>[-<mapping or estimator>]: none, additive-softmax, hard-straight, ...
RNN_VARIANTS ?= none additive-softmax additive-sparsemax additive-entmax15 hard-straight hard-gumbel hard-reinforce
RNN_FLAGS ?= --task reverse --max-steps 3000

.PHONY: rnn-table
# One run: its JSON line, and beside it its float16 checkpoint (`make models` ships four of them).
$(B)/rnn/%.json: $(B)/tools/train
	@mkdir -p $(B)/rnn
	stem=$*; att=$${stem%%-*}; rest=$${stem#*-}; \
	 case $$att in additive) extra="--map $$rest";; hard) extra="--estimator $$rest";; *) extra="";; esac; \
	 $(B)/tools/train --arch rnn --attention $$att $$extra $(RNN_FLAGS) --out $(B)/rnn/$*.sxrn --quiet > $@

rnn-table: $(patsubst %,$(B)/rnn/%.json,$(RNN_VARIANTS))
	$(NODE) tools/rnn-table.mjs --readme README.md $^ | tee $(B)/rnn/table.md

# Soft, sparse and hard attention compared (issue 24, item 4): tools/rnn-variance.c trains the six
# recurrent variants 1500 steps each, measures the attention-side gradient of every estimator on one
# batch at three points of the softmax run and at the shipped hard-straight model (and each run's
# loss and held-out accuracy every 100 steps), and tools/rnn-variance.mjs writes build/rnn/variance.md,
# the README's table and web/models/rnn-variance.json (the figures <sx-hard> draws). Not part of make test.
RNN_VARIANCE_FLAGS ?= --shipped web/models/reverse-rnn-hard-straight.sxrn

.PHONY: rnn-variance
$(B)/tools/rnn-variance: tools/rnn-variance.c tools/train-rnn.c $(CORE_SRC) $(CORE_HDR) | $(B)/inc/simde
	@mkdir -p $(B)/tools
	$(CC) $(BENCH_CFLAGS) -I$(B)/inc $< tools/train-rnn.c $(CORE_SRC) -o $@ -lm

rnn-variance: $(B)/tools/rnn-variance
	@mkdir -p $(B)/rnn
	$(B)/tools/rnn-variance $(RNN_VARIANCE_FLAGS) > $(B)/rnn/variance.json
	$(NODE) tools/rnn-variance.mjs --readme README.md --json web/models/rnn-variance.json $(B)/rnn/variance.json | tee $(B)/rnn/variance.md

# The rationale table (issue 25 item 4): tools/rationales.c trains the four selections of
# core/src/rationale.h (sparsemax, 1.5-entmax, HardKuma, REINFORCE) on the rationale task, five
# seeds each, and measures held-out accuracy, rationale precision and recall against the known
# marker positions and the selected fraction; tools/rationales.mjs writes build/rationales/table.md
# and the README's table. About 20 s. Not part of make test.
RATIONALE_FLAGS ?= --seeds 5 --steps 1500 --quiet

.PHONY: rationales
$(B)/tools/rationales: tools/rationales.c $(CORE_SRC) $(CORE_HDR) | $(B)/inc/simde
	@mkdir -p $(B)/tools
	$(CC) $(BENCH_CFLAGS) -I$(B)/inc $< $(CORE_SRC) -o $@ -lm

rationales: $(B)/tools/rationales
	@mkdir -p $(B)/rationales
	$(B)/tools/rationales $(RATIONALE_FLAGS) > $(B)/rationales/runs.jsonl
	$(NODE) tools/rationales.mjs --readme README.md $(B)/rationales/runs.jsonl | tee $(B)/rationales/table.md

# `make models` must reproduce the committed checkpoints: retrain the quickest seq2seq one (a few
# seconds) and the quickest recurrent one (about 20 s) into build/ and compare them byte for
# byte. Part of `make test`.
models-check: $(B)/tools/train
	@mkdir -p $(B)/models-check
	$(B)/tools/train --task date --kind softmax $(MODEL_FLAGS) --out $(B)/models-check/date-softmax.sxm \
	  > $(B)/models-check/date-softmax.json
	cmp $(B)/models-check/date-softmax.sxm web/models/date-softmax.sxm
	@echo "models-check: date-softmax.sxm retrained byte for byte"
	$(B)/tools/train --arch rnn --attention none $(RNN_FLAGS) --out $(B)/models-check/reverse-rnn-none.sxrn \
	  --quiet > $(B)/models-check/reverse-rnn-none.json
	cmp $(B)/models-check/reverse-rnn-none.sxrn web/models/reverse-rnn-none.sxrn
	@echo "models-check: reverse-rnn-none.sxrn retrained byte for byte"

# ---------------------------------------------------------------- text (issue 23)
# The character models' corpus: The Devil's Dictionary (Ambrose Bierce, 1911, public domain) from
# Debian's dict-devil package, as plain text split 90/5/5 in whole entries by a seeded hash of
# the headword (tools/text/corpus.mjs), into build/text/devil-{train,valid,test}.txt; prints the
# SHA-256 of each file and fails unless they equal tools/text/devil.sha256, so every model
# trained on it trains on the same bytes. Under a second; run each time (it is the check).
TEXT := $(B)/text
.PHONY: text text-baseline text-check

text:
	@test -f /usr/share/dictd/devil.dict.dz || { echo "make: /usr/share/dictd/devil.dict.dz not found (The Devil's Dictionary, the text models' corpus): apt-get install dict-devil" >&2; exit 1; }
	$(NODE) tools/text/corpus.mjs --out $(TEXT) --hashes tools/text/devil.sha256

# The baseline the character models are measured against: character n-grams of orders 2 to 5,
# interpolated modified Kneser-Ney (tools/text/ngram.c), trained on the train split; bits per
# character on validation and test, the epsilon-perplexity (core/src/perplexity.c) and support
# rate; build/text/baseline.{json,md}, and the table into the README (tools/text/readme-table.mjs).
TEXT_TOOL_SRC := tools/text/ngram.c tools/text/split.c
$(B)/tools/text-baseline: tools/text/baseline.c $(TEXT_TOOL_SRC) $(wildcard tools/text/*.h) core/src/perplexity.c core/src/status.c $(CORE_HDR)
	@mkdir -p $(B)/tools
	$(CC) $(BENCH_CFLAGS) -Itools/text tools/text/baseline.c $(TEXT_TOOL_SRC) core/src/perplexity.c core/src/status.c -o $@ -lm

text-baseline: text $(B)/tools/text-baseline
	$(B)/tools/text-baseline --dir $(TEXT) --json $(TEXT)/baseline.json --md $(TEXT)/baseline.md
	$(NODE) tools/text/readme-table.mjs --table $(TEXT)/baseline.md --readme README.md --block text-baseline

# Part of make test: the corpus's hashes (make text), and the README's baseline table against a
# fresh run (a second; the table cannot drift from tools/text/ngram.c).
text-check: text $(B)/tools/text-baseline
	$(B)/tools/text-baseline --dir $(TEXT) --json $(TEXT)/baseline.json --md $(TEXT)/baseline.md > /dev/null
	$(NODE) tools/text/readme-table.mjs --table $(TEXT)/baseline.md --readme README.md --block text-baseline --check

# The character models (issue 23, item 3): decoder-only Transformers (model.h, SX_MODEL_DECODER)
# trained natively on the train split by `build/tools/train --arch gpt` (tools/train-gpt.c), one
# per kind: softmax attention and outputs; 1.5-entmax attention, softmax outputs; learned-alpha
# attention, 1.5-entmax outputs. Each writes build/models/text/devil-<kind>.{sxm,json} (float16;
# held-out bits per character, eps-perplexity and support on the shipped weights); text-models
# copies them to web/models/text/ with web/models/text/summary.json and writes the README table
# beside the n-gram baseline of the same split (tools/text/models-table.mjs). Part of
# `make models`; not of `make test`. Deterministic: same flags, same bytes.
TEXT_KINDS := softmax entmax15 entmax15-out
TEXT_MODEL_FLAGS ?= --steps 4000 --batch 32 --d-model 64 --heads 4 --layers 2 --d-ff 256 --context 64
TEXT_BUILT := $(patsubst %,$(B)/models/text/devil-%.sxm,$(TEXT_KINDS))
.PHONY: text-models

$(B)/models/text/devil-%.sxm: $(B)/tools/train | text
	@mkdir -p $(B)/models/text
	$(B)/tools/train --arch gpt --kind $* --dir $(TEXT) $(TEXT_MODEL_FLAGS) --out $@ \
	  > $(B)/models/text/devil-$*.json

text-models: text-baseline $(TEXT_BUILT)
	@mkdir -p web/models/text
	cp $(TEXT_BUILT) web/models/text/
	{ echo '['; for k in $(TEXT_KINDS); do cat $(B)/models/text/devil-$$k.json; done | sed '$$!s/$$/,/'; \
	  echo ']'; } > web/models/text/summary.json
	$(NODE) tools/text/models-table.mjs --summary web/models/text/summary.json \
	  --baseline $(TEXT)/baseline.json --md $(TEXT)/models.md
	$(NODE) tools/text/readme-table.mjs --table $(TEXT)/models.md --readme README.md --block text-models

# tests/c/test_ngram.c tests the n-gram model of tools/text/, which the core does not hold.
$(B)/native/test_ngram: tests/c/test_ngram.c tools/text/ngram.c tools/text/ngram.h tests/c/check.h
	@mkdir -p $(B)/native
	$(CC) $(SAN_CFLAGS) -Itests/c -Itools/text $< tools/text/ngram.c -o $@ -lm
