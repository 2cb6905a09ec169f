GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/heron-shell/heron/states.Version=$(VERSION)

.PHONY: build build-failpoints test demo bench clean

build:
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o bin/heron .

# build-failpoints: bin/heron-failpoints, with the HERON_APPLY_* fault hooks
# of framework/apply/failpoints.go (kill, stop, throttle: the e2e fault
# tests); the release binary has none. See build_tags.md.
build-failpoints:
	CGO_ENABLED=0 $(GO) build -tags failpoints -ldflags "$(LDFLAGS)" -o bin/heron-failpoints .

test: build
	$(GO) vet ./...
	CGO_ENABLED=0 $(GO) test ./...
	[ ! -f tests/e2e/run.sh ] || bash tests/e2e/run.sh

demo: build
	bin/heron demo

# bench: reset checkpoint on a generated instance (BENCH_SEGMENTS, default
# 1000000; BENCH_SIZES="100000 1000000" side by side) against a local etcd
# server, beside a raw write loop; see bench/run.sh.
bench: build
	bash bench/run.sh

clean:
	rm -rf bin
