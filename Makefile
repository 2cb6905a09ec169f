GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/heron-shell/heron/states.Version=$(VERSION)

.PHONY: build test demo clean

build:
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o bin/heron .

test: build
	$(GO) vet ./...
	CGO_ENABLED=0 $(GO) test ./...
	[ ! -f tests/e2e/run.sh ] || bash tests/e2e/run.sh

demo: build
	bin/heron demo

clean:
	rm -rf bin
