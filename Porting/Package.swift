// swift-tools-version:6.0
// The VaultKit porting tool lives in its own package so that apps depending on
// VaultKit never resolve swift-syntax.
import PackageDescription

let package = Package(
    name: "VaultPorting",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "VaultPorting", targets: ["VaultPorting"]),
        .executable(name: "vault-port", targets: ["vault-port"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "602.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .target(
            name: "VaultPorting",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
            ]
        ),
        .executableTarget(
            name: "vault-port",
            dependencies: [
                "VaultPorting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "VaultPortingTests",
            dependencies: ["VaultPorting"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
