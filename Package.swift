// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "VaultKit",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "VaultKit", targets: ["VaultKit"]),
        .library(name: "VaultCore", targets: ["VaultCore"]),
        // Reads Realm's .realm files (formats 22–24, plain and encrypted) in pure Swift.
        .library(name: "RealmFileReader", targets: ["RealmFileReader"]),
        .library(name: "VaultRealmImport", targets: ["VaultRealmImport"]),
        .library(name: "VaultInterchange", targets: ["VaultInterchange"]),
        // Sync between a user's devices: change sets, merge rules, sealing, the transport boundary.
        .library(name: "VaultSync", targets: ["VaultSync"]),
        .executable(name: "vault", targets: ["vault"]),
        .executable(name: "vault-bench", targets: ["vault-bench"]),
        .executable(name: "vaultkit-demo", targets: ["vaultkit-demo"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `swift package generate-documentation` (DocC), run by `make docs` and CI.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
        // Combine publishers on every platform: OpenCombineShim is Apple's Combine
        // where it exists and OpenCombine (with its Dispatch schedulers) elsewhere.
        .package(url: "https://github.com/OpenCombine/OpenCombine.git", from: "0.14.0"),
    ],
    targets: [
        // System libraries, found through pkg-config. Never a vendored or forked SQLite.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .systemLibrary(
            name: "CSodium",
            pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])]
        ),

        // OpenSSL's libcrypto, for Realm's AES-256-CBC and HMAC-SHA224 on Linux
        // (Apple platforms use CommonCrypto; swift-crypto has no SHA-224).
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl"])]
        ),

        // A read-only reader of Realm's file format (see its RealmFileFormat.swift essay).
        .target(
            name: "RealmFileReader",
            dependencies: [.target(name: "COpenSSL", condition: .when(platforms: [.linux, .android]))]
        ),

        // The storage core: connections, the page-sealing VFS, the file format and keys.
        // Its test seams (the VFS's fault injection, the key rotation's stop point) are
        // compiled into debug builds only: a release build carries none of them.
        .target(
            name: "VaultCore",
            dependencies: ["CSQLite", "CSodium"],
            swiftSettings: [.define("VAULTKIT_TEST_SEAMS", .when(configuration: .debug))]
        ),

        // The object layer: Realm-style models over the encrypted core.
        .target(
            name: "VaultKit",
            dependencies: [
                "VaultCore",
                .product(name: "OpenCombineShim", package: "OpenCombine"),
            ]
        ),

        // Realm files into vaults: the reader's objects mapped onto a vault's schema and written.
        .target(
            name: "VaultRealmImport",
            dependencies: ["RealmFileReader", "VaultKit", "VaultCore"]
        ),

        // Sync: change sets, merge rules, sealing, and the client of a sync server
        // (a WebSocket over Foundation on Apple platforms, over POSIX sockets elsewhere).
        .target(
            name: "VaultSync",
            dependencies: ["VaultCore", "VaultKit", "CSodium",
                           .target(name: "COpenSSL", condition: .when(platforms: [.linux, .android]))]
        ),
        // The canonical JSON document (import, merge, export) and CSV export.
        .target(
            name: "VaultInterchange",
            dependencies: ["VaultKit", "VaultCore"]
        ),

        // The operator's command-line tool, a thin layer over the libraries. The key and file
        // commands (keygen, info, verify, recover, rekey, rotate-key, schema, demo) use the storage
        // core only; export and import use VaultInterchange (and VaultKit's schema); import-realm
        // uses VaultRealmImport. `vault studio` and `vault port` run the companion tools built by
        // the Server and Porting packages, as child processes: the CLI links neither.
        .executableTarget(
            name: "vault",
            dependencies: [
                "VaultCore", "VaultKit", "VaultRealmImport", "VaultInterchange",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // The README's main job: Realm-style models in an encrypted vault.
        .executableTarget(
            name: "vaultkit-demo",
            dependencies: ["VaultKit", "VaultRealmImport", "VaultSync", .product(name: "OpenCombineShim", package: "OpenCombine")]
        ),

        // Benchmarks: encrypted vs plain SQLite in one run. Never timed unit tests.
        .executableTarget(
            name: "vault-bench",
            dependencies: ["VaultKit", "VaultCore", "VaultRealmImport", "VaultSync", "CSQLite", "CSodium"]
        ),

        // A child process the tests kill at random points (durability) or run
        // as an unprivileged user (read-only mode).
        .executableTarget(
            name: "VaultTestHelper",
            dependencies: ["VaultCore", "VaultKit", "VaultSync", "VaultTestSupport"]
        ),

        // A program whose `main` is async: its vault, opened on the main actor, is used
        // across awaits (on Linux the main actor then runs on libdispatch's worker threads).
        .executableTarget(
            name: "VaultMainActorProbe",
            dependencies: ["VaultKit"]
        ),

        // Test support shared by every test target (temporary directories,
        // helper executables, small fixtures): one module, no copies.
        .target(
            name: "VaultTestSupport",
            dependencies: ["VaultCore", "VaultKit"],
            path: "Tests/VaultTestSupport"
        ),
        .testTarget(
            name: "VaultCoreTests",
            dependencies: ["VaultCore", "CSQLite", "CSodium", "VaultTestHelper", "VaultTestSupport"],
            exclude: ["Fixtures"]
        ),
        // The `vault` tool, run as a child process.
        .testTarget(
            name: "VaultCommandLineTests",
            dependencies: ["VaultCore", "vault", "VaultTestSupport"]
        ),
        .testTarget(
            name: "RealmFileReaderTests",
            dependencies: ["RealmFileReader", "VaultTestSupport"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "VaultRealmImportTests",
            dependencies: ["VaultRealmImport", "VaultInterchange", "VaultKit", "VaultCore", "RealmFileReader",
                           "VaultTestSupport", "vault"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "VaultSyncTests",
            dependencies: ["VaultSync", "VaultCore", "VaultKit", "CSodium", "VaultTestSupport", "VaultTestHelper"]
        ),
        .testTarget(
            name: "VaultKitTests",
            dependencies: ["VaultKit", "VaultTestSupport", "VaultTestHelper", "VaultMainActorProbe", "vault",
                           .product(name: "OpenCombineShim", package: "OpenCombine")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
