GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/heron-shell/heron/states.Version=$(VERSION)

# golangci-lint, pinned; built once per machine into Go's bin folder, beside
# the module and build caches, so that a fresh clone (CI's) reuses it (make lint).
GOLANGCI_LINT_VERSION := v2.15.0
GOLANGCI_LINT := $(shell $(GO) env GOPATH)/bin/golangci-lint-$(GOLANGCI_LINT_VERSION)

# Packages whose code runs goroutines (the applier, the shell's signal and
# confirm handling, windowed scans, the write commands): go test -race.
RACE_PKGS := ./framework/... ./states/instance/... ./states/reset/... ./states/restore/...

.PHONY: build build-failpoints test unit race lint demo bench chaos dist readme-transcript commands-doc clean

build:
	@[ -x bin/heron ] || echo "build: go build of bin/heron; the first build compiles every dependency (etcd client, gRPC, protobuf): 2 to 4 min on a 2-core machine (135 s measured on a loaded one), seconds after"
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o bin/heron .

# build-failpoints: bin/heron-failpoints, with the HERON_APPLY_* fault hooks
# of framework/apply/failpoints.go (kill, stop, throttle: the e2e fault
# tests); the release binary has none. See build_tags.md.
build-failpoints:
	CGO_ENABLED=0 $(GO) build -tags failpoints -ldflags "$(LDFLAGS)" -o bin/heron-failpoints .

# test: build, vet, unit tests, the race packages under -race, the e2e
# scripts in parallel, lint; each phase says what it does and how long it
# takes, and the linter is compiled in the background meanwhile when bin/
# does not have it (scripts/test.sh). Only the unit tests: make unit.
test:
	GO=$(GO) MAKE=$(MAKE) bash scripts/test.sh $(GOLANGCI_LINT) $(RACE_PKGS)

unit:
	CGO_ENABLED=0 $(GO) test ./...

# race: the race detector needs cgo (gcc). -tags failpoints: the fault
# hooks' own tests (framework/apply/failpoints_test.go) run there too.
race:
	CGO_ENABLED=1 $(GO) test -race -tags failpoints $(RACE_PKGS)

lint: $(GOLANGCI_LINT)
	$(GOLANGCI_LINT) run ./...

$(GOLANGCI_LINT):
	@echo "lint: compiling golangci-lint $(GOLANGCI_LINT_VERSION) from source into $@, once a machine (about 7.5 min on a fresh 2-core machine)"
	mkdir -p $(@D)/lint-$(GOLANGCI_LINT_VERSION)
	GOBIN=$(@D)/lint-$(GOLANGCI_LINT_VERSION) $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)
	mv $(@D)/lint-$(GOLANGCI_LINT_VERSION)/golangci-lint $@

demo: build
	bin/heron demo

# bench: reset checkpoint on a generated instance (BENCH_SEGMENTS, default
# 1000000; BENCH_SIZES="100000 1000000" side by side) against etcd 3.5
# (built from bench/etcd35) and Debian's 3.4, each phase beside a raw read
# and a raw write loop on the same server; see bench/run.sh.
bench: build
	bash bench/run.sh

# chaos: random schedules of the write commands with faults injected, each
# checked (tests/chaos, docs/chaos.md): SCHEDULES from SEED, WORKERS at a
# time; BREAK=no-revision-compare|no-session-compare|late-backup runs a
# deliberately broken heron. make chaos SEED=N SCHEDULES=1 replays one.
# make test runs a bounded set (TestChaosBoundedSet).
SCHEDULES ?= 200
SEED ?= 1
WORKERS ?= 2
chaos: build build-failpoints
	CGO_ENABLED=0 $(GO) run ./tests/chaos/cmd/chaos -schedules $(SCHEDULES) -seed $(SEED) -workers $(WORKERS) $(if $(BREAK),-break $(BREAK))

# dist: static release archives (linux and darwin, amd64 and arm64) with
# SHA-256 checksums into dist/, versioned by the git tag; the Dockerfile
# copies dist/build/linux_{arch}/heron. See scripts/dist.sh.
dist:
	VERSION=$(VERSION) bash scripts/dist.sh

# readme-transcript: the README's "A short session", from heron demo with
# piped input (the commands of scripts/readme-session.txt).
readme-transcript: build
	python3 scripts/readme_transcript.py bin/heron scripts/readme-session.txt

# commands-doc: docs/commands.md from the binary's help --format markdown
# (offline and connected); TestCommandsDocIsCurrent fails when it is stale.
commands-doc:
	CGO_ENABLED=0 $(GO) test -run TestCommandsDocIsCurrent . -update-commands-doc

clean:
	rm -rf bin dist
