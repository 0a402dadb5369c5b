# OTLPWire: `make demo` and `make test` are all a newcomer needs (see README.md).
SHELL := /bin/bash
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT_PACKAGES := libprotobuf-c-dev protobuf-c-compiler protobuf-compiler zlib1g-dev libdeflate-dev libzstd-dev zstd pkg-config python3-pip
SWIFT_BUILD_FLAGS ?=
DUMP := .build/debug/otlp-dump
FORMAT_PATHS := Package.swift Sources Tests Benchmarks FuzzTesting

.PHONY: all deps build demo test check-docs check-format format check-generated generate bench bench-deps bench-smoke bench-burst bench-delivery bench-pipeline sanitize fuzz fuzz-smoke clean

all: build

## deps: install the Debian packages, the Python reference decoders (with zstandard) and the collector rotel (tests), if missing
deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing: $$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@python3 -c "import opentelemetry.proto" 2>/dev/null || python3 -m pip install --quiet opentelemetry-proto
	@python3 -c "import google.rpc.status_pb2" 2>/dev/null || python3 -m pip install --quiet googleapis-common-protos
	@python3 -c "import zstandard" 2>/dev/null || python3 -m pip install --quiet zstandard
	@python3 -c "import rotel" 2>/dev/null || python3 -m pip install --quiet rotel==0.0.1a15

build: deps
	swift build $(SWIFT_BUILD_FLAGS)

## demo: build, write telemetry with the library under demo-output/, show it with otlp-dump
demo: build
	rm -rf demo-output
	.build/debug/otlpwire-demo demo-output
	$(DUMP) convert demo-output/traces.u32be.bin demo-output/traces.jsonl --to jsonl
	@echo; echo "== otlp-dump --brief --limit 40 demo-output/traces.u32be.bin   (the demo's own cold start, then the replayed launches)"
	$(DUMP) --brief --limit 40 demo-output/traces.u32be.bin
	@echo; echo "== otlp-dump demo-output/logs.u32be.bin.gz"
	$(DUMP) demo-output/logs.u32be.bin.gz
	@echo; echo "== otlp-dump stats demo-output/*.bin*"
	$(DUMP) stats demo-output/traces.u32be.bin demo-output/logs.u32be.bin.gz
	@echo; echo "== otlp-dump validate demo-output/*"
	$(DUMP) validate demo-output/traces.u32be.bin demo-output/logs.u32be.bin.gz demo-output/traces.jsonl

## test: check the generated C and the formatting, run the whole test suite, then check that the
## documentation of every library builds without warnings (reusing the debug build)
test: deps check-generated check-format
	swift test $(SWIFT_BUILD_FLAGS)
	scripts/check-docs.sh

## check-format: every Swift file as `swift format` (with .swift-format) leaves it; `make format` applies it
check-format:
	scripts/check-format.sh

format:
	git ls-files --cached --others --exclude-standard -- $(FORMAT_PATHS) | grep '\.swift$$' | \
	  xargs swift format format --configuration .swift-format --in-place --parallel

## check-docs: the DocC catalogs and doc comments of every library product, built with docc --warnings-as-errors
check-docs:
	scripts/check-docs.sh

check-generated: deps
	scripts/check-generated.sh
	@protoc_out=$$(mktemp); \
	(cd proto && protoc -I. --descriptor_set_out=$$protoc_out --include_imports $$(find . -name '*.proto')) && \
	  python3 scripts/compare-proto-schema.py $$protoc_out; status=$$?; rm -f $$protoc_out; exit $$status

## sanitize: the whole test suite under AddressSanitizer (with leak detection) and ThreadSanitizer
sanitize: deps
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan-suppressions.txt \
	  swift test --sanitize=address --scratch-path .build-asan
	TSAN_OPTIONS=halt_on_error=1 swift test --sanitize=thread --scratch-path .build-tsan

## fuzz: the libFuzzer targets (FuzzTesting/), FUZZ_SECONDS each (default 600); crashes land in FuzzTesting/FailCases
fuzz: deps
	scripts/fuzz.sh

## fuzz-smoke: every libFuzzer target for 15 s (CI), so a regression in a reader shows up before it lands
fuzz-smoke: deps
	FUZZ_SECONDS=15 FUZZ_SEED=1 scripts/fuzz.sh

## generate: regenerate Vendor/COTLPProto from proto/
generate:
	scripts/generate-protos.sh

BENCH_APT_PACKAGES := bc time gcc g++ binutils valgrind protobuf-compiler libprotobuf-dev

bench-deps: deps
	@missing=$$(for p in $(BENCH_APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing: $$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

## bench: the yardstick peer beside the reference encoders, decoding throughput (and validate's instructions per item), 1 GB memory check,
## the tracing pipeline (ns and allocations per span, throughput into a file), the whole process's CPU per span
## into a gzip file against NoOpTracer (a queue holding every span; the default queue with whenFull wait), gzip beside zstd (write, read, size)
## and the burst (bench-burst)
bench: bench-deps
	Benchmarks/run-yardstick.sh
	Benchmarks/TracingBenchmark/run.sh
	Benchmarks/TracingBenchmark/run.sh --whole-process --rounds $(or $(ROUNDS),3)
	Benchmarks/Compression/run.sh
	$(MAKE) bench-burst

## bench-burst: 4 threads x 25,000 spans and 25,000 log records into files (u32be traces, gzip logs) at the
## default batching, RUNS runs (default 3) with whenFull drop and with wait: what was dropped per run; then the
## batching worker's instructions per span and per log record (callgrind)
bench-burst: bench-deps
	Benchmarks/TracingBenchmark/run.sh --burst --runs $(or $(RUNS),3)
	Benchmarks/TracingBenchmark/run.sh --burst --runs $(or $(RUNS),3) --when-full wait
	Benchmarks/TracingBenchmark/worker-instructions.sh

## bench-smoke: a small run of the same (CI): hashes must agree, decoding run on a small file (debug otlp-dump)
bench-smoke: bench-deps
	Benchmarks/run-yardstick.sh --smoke
	Benchmarks/TracingBenchmark/run.sh --spans 20000 --reps 1
	Benchmarks/TracingBenchmark/run.sh --whole-process --spans 20000 --rounds 1
	Benchmarks/TracingBenchmark/run.sh --burst --items 2500 --runs 1
	Benchmarks/Compression/run.sh --smoke

## bench-delivery: the yardstick workload delivered to rotel (--exporter blackhole) on loopback by OTLPWire's
## OTLP/HTTP exporter and by swift-otel 1.6's, interleaved (ITEMS, ROUNDS); not in CI: swift-otel takes minutes to build
bench-delivery: deps
	Benchmarks/SwiftOTelComparison/run-delivery.sh --items $(or $(ITEMS),100000) --rounds $(or $(ROUNDS),3)

## bench-pipeline: the span hot path (startSpan, 8 attributes, end; 1 and 8 tasks) through NoOpTracer, OTLPWire
## (file; OTLP/HTTP to rotel) and swift-otel 1.6 (exporter none; OTLP/HTTP to rotel), each in its own process,
## interleaved (SPANS, ROUNDS); not in CI: swift-otel takes minutes to build
bench-pipeline: deps
	Benchmarks/SwiftOTelComparison/run-pipeline.sh --spans $(or $(SPANS),200000) --rounds $(or $(ROUNDS),3)

clean:
	rm -rf .build demo-output
