# Nimbus — two commands on a fresh Debian 12 machine: `make run` and `make test`.
SWIFT ?= swift
CONFIG ?=
export PATH := $(PATH):/opt/swift/usr/bin
NPROC := $(shell nproc 2>/dev/null || echo 1)
BENCH_CPU := $(if $(filter 1,$(NPROC)),,taskset -c 0)

.PHONY: all deps build release run test bench soak fuzz faults install deb deb-test clean

all: build

deps:
	@./scripts/install-deps

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product nimbusd
	$(SWIFT) build -c release --product nimbus

# Foreground daemon; CONFIG=path/to/mpd.conf to use a config file, else the safe defaults.
run: release
	./.build/release/nimbusd --no-daemon $(or $(CONFIG),--no-config)

# The static release binary is built too: StaticBinaryTests checks what `make deb` would ship.
test: deps
	@./scripts/install-python-clients
	$(SWIFT) build --build-tests
	$(SWIFT) build -c release --static-swift-stdlib --scratch-path .build/static --product nimbusd
	NIMBUS_REQUIRE_STATIC=1 $(SWIFT) test

# nimbusd and Debian's MPD side by side; prints ratios ours/MPD. Never fails on a number.
# The nimbusd measured is the static build `make deb` ships (BENCH_DAEMON= for another).
BENCH_DAEMON ?= .build/static/release/nimbusd
bench: deps
	$(SWIFT) build -c release --product nimbusd
	$(SWIFT) build -c release --static-swift-stdlib --scratch-path .build/static --product nimbusd
	$(SWIFT) build -c release --product nimbus-bench
	NIMBUS_DAEMON=$(abspath $(BENCH_DAEMON)) $(BENCH_CPU) ./.build/release/nimbus-bench $(BENCH_ARGS)

# Twenty seeded clients against a playing daemon for ten minutes (the suite runs 15 s).
soak: deps
	$(SWIFT) build --build-tests
	NIMBUS_SOAK_SECONDS=$${NIMBUS_SOAK_SECONDS:-600} $(SWIFT) test --skip-build --filter SoakTests

# Seeded mutations of real requests, 300,000 lines (the suite sends 3,000), and 20,000 mutated
# HTTP requests and WebSocket frames for the web port (the suite sends 200); NIMBUS_FUZZ_SEED picks the run.
fuzz: deps
	$(SWIFT) build --build-tests
	NIMBUS_FUZZ_LINES=$${NIMBUS_FUZZ_LINES:-300000} $(SWIFT) test --skip-build --filter RobustnessTests/testMutatedRequests
	NIMBUS_WEB_FUZZ_CASES=$${NIMBUS_WEB_FUZZ_CASES:-20000} $(SWIFT) test --skip-build --filter WebPageTests/testMutatedRequestsAndFramesHarmNothing

# A cloud file replaced on the server, played under faults on every request: 20 seeds for each
# of FLAC, MP3 and Ogg (the suite runs 3); minutes.
faults: deps
	$(SWIFT) build --build-tests
	NIMBUS_REPLACED_SEEDS=$${NIMBUS_REPLACED_SEEDS:-20} $(SWIFT) test --skip-build --filter CloudWebDAVTests/testAReplacedFileUnderFaultsPlaysOneVersionWholeOrFails

# Binaries, /etc/nimbus/nimbusd.conf and the systemd unit (PREFIX, DESTDIR as usual).
install: release
	./scripts/install

# .build/deb/nimbus_VERSION_ARCH.deb (+ nimbus-dbgsym): static Swift runtime, Depends from
# dpkg-shlibdeps, the unit, the conffile (README, "Installing on a box").
deb: deps
	./scripts/make-deb

# The package installed into a clean Debian 12 root (mmdebstrap, Debian's mirror) and checked
# there: start, mpc, play, web page, /rest/ping, upgrade, purge. Root, minutes; not in `make test`.
deb-test:
	@ls .build/deb/nimbus_*.deb >/dev/null 2>&1 || ./scripts/make-deb
	./scripts/deb-test

clean:
	$(SWIFT) package clean
