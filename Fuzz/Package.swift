// swift-tools-version:6.0
// libFuzzer targets for imgcache's parsers and rewriter, kept apart from the main package so that
// `swift build` and `swift test` there never need the fuzzer runtime. Build and run with `./run.sh`.
import PackageDescription

let fuzzTargets = ["rewriter", "srcset", "cssurls", "url", "metacharset", "indexline"]

let package = Package(
    name: "imgcache-fuzz",
    dependencies: [.package(name: "imgcache", path: "..")],
    targets: [
        // Declares libFuzzer's LLVMFuzzerRunDriver, which the fuzzer runtime linked by
        // `-sanitize=fuzzer` defines.
        .target(name: "CLibFuzzer"),
        // The property checks, shared with the main package's regression test (a symbolic link
        // to Tests/ImgCacheTests/Fuzzing/FuzzProperties.swift).
        .target(name: "FuzzProperties", dependencies: [.product(name: "ImgCache", package: "imgcache")]),
        .target(name: "FuzzDriver", dependencies: ["CLibFuzzer", "FuzzProperties"]),
    ] + fuzzTargets.map {
        // Parsed as a library, so that the single file is not a main file: the entry point is the
        // `@_cdecl("<target>_main")` function it defines.
        .executableTarget(name: $0, dependencies: ["FuzzDriver", "FuzzProperties"],
                          swiftSettings: [.unsafeFlags(["-parse-as-library"])])
    }
)
