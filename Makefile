# Groupie: `make run` serves the sample venues; `make test` runs every test.
SWIFT ?= swift
PORT ?= 8080
# `make fuzz`: seconds per libFuzzer target, and which targets (default: all of Fuzz/).
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?=

# The tests of the server's own clocks (a reload within its second, a body or a connection
# closed after its timeout): run on their own after the rest, so that the whole suite's load
# does not stand in for a slow client.
TIMED_TESTS = ReloadTimingTests|SlowBodyTests|HardeningTests/timeouts
# How many Swift tests run at once. Unbounded, every one of the suite's tests starts at once and
# the servers some run in the tests' own process wait behind all the others for a thread: a
# server that answers in milliseconds took over ten seconds. Eight keep both cores busy.
TEST_WIDTH ?= 8

.PHONY: run test test-servers test-browsers test-loaded test-fast build release bench validate bootstrap clean fuzz

bootstrap:
	@scripts/bootstrap

build: bootstrap
	$(SWIFT) build

release: bootstrap
	$(SWIFT) build -c release --product groupie

run: release
	.build/release/groupie serve --port $(PORT)

test: bootstrap
	scripts/check-architecture
	scripts/location-corpus --check
	$(SWIFT) build --build-tests
	scripts/with-postgres $(SWIFT) test --skip-build --skip '$(TIMED_TESTS)' --experimental-maximum-parallelization-width $(TEST_WIDTH)
	$(SWIFT) test --skip-build --filter '$(TIMED_TESTS)'
	python3 Tests/harness/harness_test.py .build/debug/groupie
	$(MAKE) --no-print-directory -j2 --output-sync=line test-servers test-browsers

# The two lanes `make test` runs side by side once built, each test's output printed whole when
# it ends: the servers' tests (end to end, then the attack on the API) and the browser tests.
# Every test takes free ports and folders of its own, so the lanes share nothing.
test-servers:
	scripts/with-postgres python3 Tests/EndToEnd/two_instances_test.py .build/debug/groupie
	scripts/with-postgres python3 Tests/EndToEnd/reverse_proxy_test.py .build/debug/groupie
	python3 Tests/EndToEnd/https_test.py .build/debug/groupie
	python3 Tests/EndToEnd/deploy_test.py .build/debug/groupie
	python3 Tests/EndToEnd/caddy_test.py .build/debug/groupie
	python3 Tests/EndToEnd/traces_test.py .build/debug/groupie
	python3 Tests/API/schemathesis_test.py .build/debug/groupie

test-browsers:
	python3 Tests/Browser/web_client_test.py .build/debug/groupie
	python3 Tests/Browser/visitor_path_test.py .build/debug/groupie
	python3 Tests/Browser/offline_test.py .build/debug/groupie
	python3 Tests/Browser/teamwork_test.py .build/debug/groupie
	python3 Tests/Browser/upload_resume_test.py .build/debug/groupie
	python3 Tests/Browser/staff_console_test.py .build/debug/groupie
	python3 Tests/Browser/mission_editor_test.py .build/debug/groupie
	python3 Tests/Browser/staff_messages_test.py .build/debug/groupie
	python3 Tests/Browser/secure_context_test.py .build/debug/groupie
	python3 Tests/Browser/finale_test.py .build/debug/groupie
	python3 Tests/Browser/languages_test.py .build/debug/groupie
	python3 Tests/Browser/task_kinds_test.py .build/debug/groupie

# `make test` on a busy machine: one CPU burner per core runs beside the whole suite, which must
# pass all the same (its tests wait on events, never on the clock).
test-loaded: bootstrap
	scripts/with-load $(MAKE) test

# The edit-test loop: Core, Content and the storage contract on SQLite, in under two minutes
# once built; no PostgreSQL, browser or fuzzer. `make test` stays the whole.
test-fast: bootstrap
	scripts/check-architecture
	$(SWIFT) build --build-tests
	GROUPIE_TEST_BACKENDS=sqlite $(SWIFT) test --skip-build --filter 'GroupieCoreTests|GroupieContentTests|StoreContractTests|MembershipTests'

validate: release
	.build/release/groupie missions validate missions/

bench: bootstrap
	Benchmarks/bench

fuzz: bootstrap
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_TARGETS="$(FUZZ_TARGETS)" scripts/fuzz

clean:
	rm -rf .build
