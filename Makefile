# Groupie: `make run` serves the sample venues; `make test` runs every test.
SWIFT ?= swift
PORT ?= 8080

.PHONY: run test build release bench validate bootstrap clean

bootstrap:
	@scripts/bootstrap

build: bootstrap
	$(SWIFT) build

release: bootstrap
	$(SWIFT) build -c release --product groupie

run: release
	.build/release/groupie serve --port $(PORT)

test: bootstrap
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	python3 Tests/Browser/web_client_test.py .build/debug/groupie
	python3 Tests/API/schemathesis_test.py .build/debug/groupie

validate: release
	.build/release/groupie missions validate missions/

bench: bootstrap
	scripts/bench

clean:
	rm -rf .build
