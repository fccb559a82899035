# Simplexity build. Intermediates in build/, deliverables in dist/.
#   make          dist/: the npm package's files (the ES module, the SIMD and scalar .wasm, the
#                 widgets, the shipped models, the TypeScript declarations, the single-file
#                 bundle) and dist/site/, the static page (not in the package)
#   make test     everything that checks correctness (the README's test command)
#   make bench    speed tables (ratios measured in one run); not part of the tests
#   make bench-attention   attention and model speed, SIMD vs scalar vs native (issue 3)
#   make bench-decode      greedy decoding tokens/s, KV cache vs full recomputation (issue 13)
#   make fuzz     a long libFuzzer run (make test does a short one)
#   make serve    build, then serve the page on 127.0.0.1

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
# wasm/exports.txt), -O3. The mappings core, for the widgets that draw mappings only (no
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

.PHONY: explain-findings all site site-size tools-test test commands-smoke test-c test-js test-types test-browser test-package check-simd fuzz fuzz-short bench bench-attention bench-decode serve clean tools

# The deliverables: the package's files and the static site.
all: tools $(DIST) site

# The static page: the package's files plus the page's own, ready for any static host. The blog
# post example goes one folder down (site/examples/), so it loads the widgets from another folder.
# The site's JavaScript is then minified in place, module by module (tools/minify.mjs): web/
# holds the sources, dist/site/ what ships.
SITE := $(D)/site
site: $(DIST) examples/blog-post.html
	@mkdir -p $(SITE)/examples
	cp $(WASM) $(D)/simplexity-widgets.js $(SITE)/
	$(NODE) tools/layout.mjs --site --out $(SITE)
	cp examples/blog-post.html $(SITE)/examples/
	$(NODE) tools/minify.mjs --site $(SITE)

# The single-file build (every widget, the library and both .wasm inlined) for hosts that
# cannot serve .wasm files: built from dist/'s own files, beside which it fetches models/.
$(D)/simplexity-widgets.js: tools/bundle.mjs package.json $(D)/simplexity-simd.wasm $(D)/simplexity.wasm $(LAYOUT)
	$(NODE) tools/bundle.mjs --site $(D) --out $@

# Transfer size of the page and of the widgets alone, gzipped.
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

# SIMD build: simd128 + bulk memory (fast memcpy).
$(D)/simplexity-simd.wasm: $(CORE_SRC) $(CORE_HDR) wasm/exports.txt wasm/exports-mappings.txt | $(B)/inc/simde
	@mkdir -p $(D)
	$(EMCC) $(EM_FLAGS) -msimd128 -mbulk-memory $(EM_INC) $(CORE_SRC) -o $@

# Scalar build: the same source, SIMDe lowers the intrinsics to scalar code; MVP wasm only.
$(D)/simplexity.wasm: $(CORE_SRC) $(CORE_HDR) wasm/exports.txt wasm/exports-mappings.txt | $(B)/inc/simde
	@mkdir -p $(D)
	$(EMCC) $(EM_FLAGS) -Wno-pass-failed $(EM_INC) $(CORE_SRC) -o $@

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
# where tools/layout.mjs's map puts it, relative specifiers rewritten for that place.
$(LAYOUT): tools/layout.mjs $(WEB_SRC)
	@mkdir -p $(D)
	$(NODE) tools/layout.mjs --out $(D)
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
$(B)/native/%: tests/c/%.c $(TEST_SUPPORT) $(CORE_SRC) $(CORE_HDR) tests/c/check.h tests/c/prng.h
	@mkdir -p $(B)/native
	$(CC) $(SAN_CFLAGS) -I$(B)/inc -Itests/c $< $(TEST_SUPPORT) $(CORE_SRC) -o $@ -lm

test-c: $(TEST_BINS)
	@set -e; for t in $(TEST_BINS); do echo "== $$t"; $$t; done

# libFuzzer: every entry point on arbitrary bytes.
$(B)/fuzz/fuzz_core: tests/fuzz/fuzz_core.c $(CORE_SRC) $(CORE_HDR) | $(B)/inc/simde
	@mkdir -p $(B)/fuzz
	$(CLANG) $(WARN) $(NATIVE_INC) -I$(B)/inc -O1 -g -msse4.2 -fsanitize=fuzzer,address,undefined \
	  -fno-sanitize-recover=all $< $(CORE_SRC) -o $@ -lm

fuzz-short: $(B)/fuzz/fuzz_core
	@mkdir -p $(B)/fuzz/corpus
	$(B)/fuzz/fuzz_core -runs=40000 -max_len=2048 -seed=1 $(B)/fuzz/corpus 2>&1 | tail -3

fuzz: $(B)/fuzz/fuzz_core
	@mkdir -p $(B)/fuzz/corpus
	$(B)/fuzz/fuzz_core -max_total_time=600 -max_len=4096 $(B)/fuzz/corpus

# node --test against both wasm builds.
test-js: all
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
	$(NODE) tests/browser/span-pooling.mjs
	$(NODE) tests/browser/jacobian.mjs
	$(NODE) tests/browser/threshold.mjs
	$(NODE) tests/browser/regularized.mjs
	$(NODE) tests/browser/patterns.mjs
	$(NODE) tests/browser/scores.mjs
	$(NODE) tests/browser/positions.mjs
	$(NODE) tests/browser/transformer.mjs
	$(NODE) tests/browser/decode.mjs
	$(NODE) tests/browser/explain.mjs
	$(NODE) tests/browser/keep-model.mjs
	$(NODE) tests/browser/readme.mjs
	$(NODE) tests/browser/single-file.mjs
	$(NODE) tests/browser/a11y.mjs

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
# `make bench-attention` in build/bench/*.md are left as they were.
commands-smoke: all $(B)/bench/bench_native $(B)/bench/bench_attention $(B)/bench/peak-simd.wasm
	@mkdir -p $(B)/bench/smoke
	$(NODE) bench/run.mjs --quick --rounds 1 --ms 5 --maps softmax,entmax --n 3,64 --out $(B)/bench/smoke > $(B)/bench/smoke/run.txt
	$(NODE) bench/backward.mjs --quick --n 64 > $(B)/bench/smoke/backward.txt
	$(NODE) bench/attention.mjs --quick --rounds 1 --ms 5 --out $(B)/bench/smoke > $(B)/bench/smoke/attention.txt
	$(NODE) bench/long.mjs --quick --out $(B)/bench/smoke > $(B)/bench/smoke/long.txt
	$(NODE) tests/browser/sizes.mjs --check > $(B)/site-size.txt || { cat $(B)/site-size.txt; exit 1; }
	$(NODE) tests/browser/train-time.mjs date-softmax
	$(NODE) bench/decode.mjs --rounds 1 --ms 5 > $(B)/bench/smoke/decode.txt
	$(NODE) tools/explain-findings.mjs --count 3 --only reverse-softmax,date-entmax15 > $(B)/bench/smoke/findings.md
	@echo "commands-smoke: make bench, make bench-attention, make bench-decode, make explain-findings, make site-size and train-time.mjs run"

# The README's test command.
test: all tools-test check-simd test-c fuzz-short models-check test-js test-types test-browser test-package commands-smoke
	@echo "make test: all suites passed"

$(B)/bench/bench_native: bench/bench_native.c bench/inputs.h $(CORE_SRC) $(CORE_HDR) | $(B)/inc/simde
	@mkdir -p $(B)/bench
	$(CC) $(BENCH_CFLAGS) -I$(B)/inc $< $(CORE_SRC) -o $@ -lm

bench: all $(B)/bench/bench_native
	$(NODE) bench/run.mjs
	$(NODE) bench/backward.mjs

# Attention and model speed (issue 3): attention() per mapping at n = 128, 512 and the shipped
# model's forward tokens/s and train steps/s, SIMD vs scalar wasm vs native, with the mul+add
# peak probe (bench/peak.c) that relates the times to the reference machine's; then long sequences
# (issue 14, bench/long.mjs): the tiled path against the map path, tfjs and onnxruntime-web,
# n = 1024 ... 16384. Not part of the tests.
$(B)/bench/bench_attention: bench/bench_attention.c bench/inputs.h bench/peak.c $(CORE_SRC) $(CORE_HDR) | $(B)/inc/simde
	@mkdir -p $(B)/bench
	$(CC) $(BENCH_CFLAGS) -I$(B)/inc bench/bench_attention.c bench/peak.c $(CORE_SRC) -o $@ -lm

$(B)/bench/peak-simd.wasm: bench/peak.c | $(B)/inc/simde
	@mkdir -p $(B)/bench
	$(EMCC) -O3 -msimd128 -I$(B)/inc bench/peak.c --no-entry -sSTANDALONE_WASM -o $@

bench-attention: all $(B)/bench/bench_attention $(B)/bench/peak-simd.wasm
	$(NODE) bench/attention.mjs
	$(NODE) bench/long.mjs

# Greedy decoding tokens/s with the KV cache vs the full recomputation (issue 13), SIMD and
# scalar wasm, the shipped model and max_len 32 / 128 (the O(t) vs O(t^2) steps). Not part of the tests.
bench-decode: all
	$(NODE) bench/decode.mjs

# Build, then serve the page on 127.0.0.1 (PORT=8081 make serve to change the port).
serve: all
	$(NODE) web/site/serve.mjs --root $(SITE)

clean:
	rm -rf $(B) $(D)

# ---------------------------------------------------------------- models (issue 3)
# build/tools/train trains one (task, attention kind) natively and deterministically and writes
# its checkpoint in float16 (format version 2; its JSON line measures the model as loaded back
# from those bytes); `make models` trains every pair into build/models/<task>-<kind>.sxm, then
# copies them to web/models/ and writes web/models/summary.json and the README table. Not part
# of `make test`. The committed web/models/ files have no rule of their own, so nothing else
# (the site, a fresh clone's build) ever retrains them behind your back.
MODEL_TASKS := reverse sort after_marker date
MODEL_KINDS := softmax entmax15 alpha alpha-span
MODEL_STEMS := $(foreach t,$(MODEL_TASKS),$(foreach k,$(MODEL_KINDS),$(t)-$(k)))
MODEL_BUILT := $(patsubst %,$(B)/models/%.sxm,$(MODEL_STEMS))
# Per-run trainer flags (the shipped config); see tools/train.c for the options.
MODEL_FLAGS ?=

.PHONY: models models-check

$(B)/tools/train: tools/train.c $(CORE_SRC) $(CORE_HDR) | $(B)/inc/simde
	@mkdir -p $(B)/tools
	$(CC) $(BENCH_CFLAGS) -I$(B)/inc $< $(CORE_SRC) -o $@ -lm

# One checkpoint and its JSON line; the stem is <task>-<kind> (kinds may contain '-').
$(B)/models/%.sxm: $(B)/tools/train
	@mkdir -p $(B)/models
	stem=$*; $(B)/tools/train --task $${stem%%-*} --kind $${stem#*-} $(MODEL_FLAGS) --out $@ \
	  > $(B)/models/$*.json

models: $(MODEL_BUILT)
	cp $(MODEL_BUILT) web/models/
	{ echo '['; for s in $(MODEL_STEMS); do sed '$$!d' $(B)/models/$$s.json; done | sed '$$!s/$$/,/'; \
	  echo ']'; } > web/models/summary.json
	$(NODE) tools/summary.mjs --readme README.md

# `make models` must reproduce the committed checkpoints: retrain the quickest one (a few
# seconds) into build/ and compare it byte for byte. Part of `make test`.
# "Is attention explanation?" on every shipped model (about 6 minutes): rewrites the README's table
# (tests/js/readme-findings.test.mjs recomputes two of its rows).
explain-findings: all
	$(NODE) tools/explain-findings.mjs --count 200 --readme README.md

models-check: $(B)/tools/train
	@mkdir -p $(B)/models-check
	$(B)/tools/train --task date --kind softmax $(MODEL_FLAGS) --out $(B)/models-check/date-softmax.sxm \
	  > $(B)/models-check/date-softmax.json
	cmp $(B)/models-check/date-softmax.sxm web/models/date-softmax.sxm
	@echo "models-check: date-softmax.sxm retrained byte for byte"
