// swift-tools-version:6.0
// vault-studio, a local web browser for a vault, lives in its own package so
// that apps depending on VaultKit never resolve SwiftNIO or Hummingbird.
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
    name: "VaultStudio",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "VaultStudio", targets: ["VaultStudio"]),
        .executable(name: "vault-studio", targets: ["vault-studio"]),
    ],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
    ],
    targets: [
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
        .testTarget(
            name: "VaultStudioTests",
            dependencies: [
                "VaultStudio",
                "vault-studio",
                .product(name: "VaultKit", package: parent),
                .product(name: "VaultCore", package: parent),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
