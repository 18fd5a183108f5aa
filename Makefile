# VaultKit — the two commands of the README quick start, and a few more.
#   make demo    install the C libraries if needed, build, run the demo (models in an encrypted vault)
#   make test    install the C libraries if needed, run every test (VaultKit's, then the porting tool's and the studio's packages;
#                the studio's browser test runs where Chromium is installed)
#   make bench   benchmarks, release build: encrypted vs plain SQLite, objects, queries, Realm import, sync recording; VaultKit vs GRDB side by side
#   make docs    the DocC documentation of VaultKit, VaultCore, RealmFileReader, VaultRealmImport, VaultInterchange and VaultSync; a broken symbol link fails it

.PHONY: dependencies demo test bench docs clean

dependencies:
	@bash scripts/install-dependencies.sh

demo: dependencies
	swift run vaultkit-demo

test: dependencies
	swift test
	cd Porting && swift test
	cd Studio && swift test

bench: dependencies
	swift run -c release vault-bench storage
	swift run -c release vault-bench objects
	swift run -c release vault-bench queries
	swift run -c release vault-bench notifications
	swift run -c release vault-bench migration
	swift run -c release vault-bench realm-import
	swift run -c release vault-bench sync
	cd Benchmarks && swift run -c release side-by-side

docs: dependencies
	swift package generate-documentation --target VaultKit --target VaultCore --target RealmFileReader --target VaultRealmImport --target VaultInterchange --target VaultSync --warnings-as-errors

clean:
	rm -rf .build vault-demo
