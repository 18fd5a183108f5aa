# VaultKit — the two commands of the README quick start, and a few more.
#   make demo    install the C libraries if needed, build, run the demo (models in an encrypted vault)
#   make test    install the C libraries if needed, run every test
#   make bench   encrypted vs plain SQLite, release build

.PHONY: dependencies demo test bench clean

dependencies:
	@bash scripts/install-dependencies.sh

demo: dependencies
	swift run vaultkit-demo

test: dependencies
	swift test

bench: dependencies
	swift run -c release vault-bench

clean:
	rm -rf .build vault-demo
