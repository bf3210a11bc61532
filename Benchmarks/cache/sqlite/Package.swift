// swift-tools-version:6.0
// The weighing of issue 52 item 6: a GRDB/SQLite-backed cache index beside imgcache's hand-built one.
import PackageDescription

let package = Package(
    name: "sqlite-weigh",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "SQLiteImageIndex", targets: ["SQLiteImageIndex"]),
        .executable(name: "weigh-grdb", targets: ["weigh-grdb"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // StagedFile, a condensed StagedImageFile: not counted as the index's lines. XXH64 is the
        // product's own file, linked into each target that hashes.
        .target(name: "Shared", path: "Sources/Shared"),
        // The prototype: the index in SQLite through GRDB (counted).
        .target(name: "SQLiteImageIndex", dependencies: [.product(name: "GRDB", package: "GRDB.swift"), "Shared"]),
        .executableTarget(name: "weigh-grdb", dependencies: ["SQLiteImageIndex", "Shared"]),
        .executableTarget(name: "size-probe", dependencies: ["Shared"]),
    ],
    swiftLanguageModes: [.v6]
)
