// swift-tools-version:6.0
// The side-by-side benchmark: VaultKit (encrypted) against GRDB (plain SQLite),
// in one process, as an app developer would use each. Kept apart from the
// VaultKit package (as swift-crypto keeps its benchmarks) so that the library
// never depends on GRDB. Run it with `make bench` or
// `cd Benchmarks && swift run -c release side-by-side`.
import PackageDescription

let package = Package(
    name: "VaultKitBenchmarks",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [
        .package(name: "VaultKit", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "side-by-side",
            dependencies: [
                .product(name: "VaultKit", package: "VaultKit"),
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for stock SQLite's own figure under the update row.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
    ]
)
