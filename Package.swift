// swift-tools-version:6.0
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "imgcache",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "ImgCache", targets: ["ImgCache"]),
        .executable(name: "imgcache", targets: ["imgcache"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
        ),
        .target(
            name: "ImgCache",
            dependencies: [
                "CLibXML2",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "imgcache",
            dependencies: [
                "ImgCache",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ImgCacheTests",
            dependencies: ["ImgCache", "imgcache"],
            swiftSettings: strictSettings
        ),
    ]
)
