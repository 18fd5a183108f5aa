// swift-tools-version:6.0
// VaultKit's two HTTP servers live in this package of their own, so that apps
// depending on VaultKit (and its VaultSync client) never resolve SwiftNIO,
// Hummingbird or postgres-nio:
// - vault-sync-server, the relay devices sync through (Hummingbird, WebSocket, PostgreSQL);
// - vault-studio, a local web browser for a vault (Hummingbird, 127.0.0.1 only).
// They share one package, and so one build of SwiftNIO and Hummingbird.
import Foundation
import PackageDescription

// SwiftPM names a path dependency by its folder's last path component,
// lowercased: `main` in one checkout, something else in a CI clone.
let parent = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()
    .deletingLastPathComponent()
    .lastPathComponent
    .lowercased()

let package = Package(
    name: "VaultServer",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "VaultSyncServer", targets: ["VaultSyncServer"]),
        .executable(name: "vault-sync-server", targets: ["vault-sync-server"]),
        .executable(name: "vault-sync-demo", targets: ["vault-sync-demo"]),
        .executable(name: "vault-sync-bench", targets: ["vault-sync-bench"]),
        .library(name: "VaultStudio", targets: ["VaultStudio"]),
        .executable(name: "vault-studio", targets: ["vault-studio"]),
    ],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
    ],
    targets: [
        // The relay: token auth, the PostgreSQL store, the WebSocket protocol, limits, health and metrics.
        .target(
            name: "VaultSyncServer",
            dependencies: [
                .product(name: "VaultSync", package: parent),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "vault-sync-server",
            dependencies: [
                "VaultSyncServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Starting PostgreSQL and server processes, for the tests, the demo and the benchmark.
        .target(
            name: "SyncServerHarness",
            dependencies: [
                .product(name: "VaultSync", package: parent),
                .product(name: "VaultKit", package: parent),
            ]
        ),
        // `make sync-demo`: PostgreSQL, a server and two devices.
        .executableTarget(
            name: "vault-sync-demo",
            dependencies: [
                "SyncServerHarness",
                .product(name: "VaultSync", package: parent),
                .product(name: "VaultKit", package: parent),
            ]
        ),
        // Latency, initial download and connected devices against a real server.
        .executableTarget(
            name: "vault-sync-bench",
            dependencies: [
                "SyncServerHarness",
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "VaultSync", package: parent),
                .product(name: "VaultKit", package: parent),
            ]
        ),
        // A device in its own process (the tests kill and restart them).
        .executableTarget(
            name: "SyncDeviceHelper",
            dependencies: [
                "SyncServerHarness",
                .product(name: "VaultSync", package: parent),
                .product(name: "VaultKit", package: parent),
            ]
        ),
        .testTarget(
            name: "VaultSyncServerTests",
            dependencies: [
                "VaultSyncServer",
                "SyncServerHarness",
                "vault-sync-server",
                "SyncDeviceHelper",
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "VaultSync", package: parent),
                .product(name: "VaultKit", package: parent),
            ]
        ),
        // vault-studio: the web application (pages, forms, the JSON export) and its command line.
        .target(
            name: "VaultStudio",
            dependencies: [
                .product(name: "VaultKit", package: parent),
                .product(name: "VaultCore", package: parent),
                .product(name: "VaultInterchange", package: parent),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .executableTarget(
            name: "vault-studio",
            dependencies: [
                "VaultStudio",
                .product(name: "VaultCore", package: parent),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Over HTTP and in headless Chromium, against the built executable.
        .testTarget(
            name: "VaultStudioTests",
            dependencies: [
                "VaultStudio",
                "vault-studio",
                "SyncServerHarness",
                .product(name: "VaultKit", package: parent),
                .product(name: "VaultCore", package: parent),
                .product(name: "VaultInterchange", package: parent),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
