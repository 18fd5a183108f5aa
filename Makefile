# VaultKit — the two commands of the README quick start, and a few more.
#   make demo    install the C libraries if needed, build, run the demo (models in an encrypted vault)
#   make test    install the C libraries, PostgreSQL and Chromium if needed, run every test (VaultKit's, then the
#                porting tool's package, then the servers' package: the studio's browser tests drive headless
#                Chromium, the sync server's tests start PostgreSQL themselves)
#   make bench   benchmarks, release build: encrypted vs plain SQLite, objects, queries, Realm import, sync recording; VaultKit vs GRDB side by side
#   make sync-demo  PostgreSQL, a sync server and devices in a signed space: sync, a second person joining, a lost phone removed
#   make docs    the DocC documentation of VaultKit, VaultCore, RealmFileReader, VaultRealmImport, VaultInterchange and VaultSync; a broken symbol link fails it

.PHONY: dependencies postgresql chromium demo sync-demo test bench docs clean

dependencies:
	@bash scripts/install-dependencies.sh

postgresql:
	@bash scripts/install-postgresql.sh

chromium:
	@bash scripts/install-chromium.sh

demo: dependencies
	swift run vaultkit-demo

sync-demo: dependencies postgresql
	cd Server && swift build --product vault-sync-server && swift run vault-sync-demo

test: dependencies postgresql chromium
	swift test
	cd Porting && swift test
	cd Server && swift test

bench: dependencies postgresql
	swift run -c release vault-bench storage
	swift run -c release vault-bench objects
	swift run -c release vault-bench queries
	swift run -c release vault-bench notifications
	swift run -c release vault-bench migration
	swift run -c release vault-bench realm-import
	@test -x /usr/bin/time || ! command -v apt-get >/dev/null || { sudo=""; [ "$$(id -u)" -eq 0 ] || sudo=sudo; $$sudo apt-get install -y -qq time >/dev/null; }
	swift build -c release --product vault && swift run -c release vault-bench json-import
	swift run -c release vault-bench sync
	cd Benchmarks && swift run -c release side-by-side
	cd Server && swift build -c release --product vault-sync-server && swift run -c release vault-sync-bench

docs: dependencies
	swift package generate-documentation --target VaultKit --target VaultCore --target RealmFileReader --target VaultRealmImport --target VaultInterchange --target VaultSync --warnings-as-errors

clean:
	rm -rf .build vault-demo Server/.build Porting/.build Benchmarks/.build
