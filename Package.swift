// swift-tools-version:6.2
import PackageDescription
#if canImport(Glibc)
import Glibc
#endif

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// Apple's SDKs ship libxml2 as a Clang module of their own (`import libxml2`, Xcode 12+), which
// Xcode finds without pkg-config; `CLibXML2` is for the other platforms. Neither that module nor
// Darwin's iconv headers link their library, so both are linked by name there.
let applePlatforms: [Platform] = [.macOS, .macCatalyst, .iOS, .tvOS, .watchOS, .visionOS]
let otherPlatforms: [Platform] = [.linux, .android, .windows, .openbsd, .wasi]

// The command's release link on Linux, for its memory: a run touches every relocation the loader
// applies, and a PIE Swift binary holds 126,000 relative ones (3 MB of `.rela.dyn`, read whole at
// each start) and exports its 36,000 symbols (dynamic symbol tables the loader searches).
// lld packs the relocations into a few KB (DT_RELR) and exports nothing, which takes megabytes
// off every run's memory (Benchmarks/HISTORY.md, "The release link"). DT_RELR needs glibc
// 2.36 where the binary runs, and lld marks the binary so (GLIBC_ABI_DT_RELR): it is used only
// when the glibc building it has it, so that a binary built on an older one still starts there.
// (lld ships with the Swift toolchains this manifest's tools version needs, and their SwiftPM no
// longer refuses a dependency whose targets have unsafe flags.)
let commandLinkerSettings: [LinkerSetting] = {
    var flags = ["-use-ld=lld", "-Xlinker", "--no-export-dynamic"]
    #if canImport(Glibc)
    var text = [CChar](repeating: 0, count: 64)  // "glibc 2.36"
    let version = confstr(Int32(_CS_GNU_LIBC_VERSION), &text, text.count) > 0
        ? String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "." }).compactMap { Int($0) } : []
    if version.count >= 2, (version[0], version[1]) >= (2, 36) {
        flags += ["-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"]
    }
    #endif
    return [.unsafeFlags(flags, .when(platforms: [.linux], configuration: .release))]
}()

let package = Package(
    name: "imgcache",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "ImgCache", targets: ["ImgCache"]),
        .library(name: "ImgCacheHTTPClient", targets: ["ImgCacheHTTPClient"]),
        .library(name: "ImgCacheCurl", targets: ["ImgCacheCurl"]),
        .library(name: "ImgCacheURLSession", targets: ["ImgCacheURLSession"]),
        .executable(name: "imgcache", targets: ["imgcache"]),
        // `swift package localize-images …`: `imgcache fetch` as a command of the package that uses it.
        .plugin(name: "LocalizeImages", targets: ["LocalizeImages"]),
    ],
    // What an app that wants only ImgCache and ImgCacheURLSession turns off with `traits: []` on
    // its `.package` line: SwiftPM then neither resolves nor builds SwiftNIO, AsyncHTTPClient,
    // ArgumentParser, swift-subprocess and the rest (checked with Swift 6.3.1: swift-crypto and
    // swift-asn1 alone are resolved).
    traits: [
        .trait(name: "CommandLine",
               description: "The imgcache command, the AsyncHTTPClient transport (ImgCacheHTTPClient), the libcurl one (ImgCacheCurl) and the test servers."),
        .default(enabledTraits: ["CommandLine"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // Child processes (the CLI's --on-refresh hook, the tests' runs of the CLI, curl, sh) are
        // started with swift-subprocess, not Foundation's Process: on Linux, Process.run() of Swift
        // 6.3.1 reads past a directory entry while closing descriptors and crashes now and then
        // (swift-corelibs-foundation #5472), and it changes the whole process's current directory
        // to give a child its working directory. swift-subprocess posix_spawns with closefrom and
        // fchdir file actions instead. Only the CLI and the tests use it; the core library
        // starts no processes.
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        // For the FilePath the tests hand to swift-subprocess (on Linux; Apple's SDK has System).
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        // libcurl for the command line's transport on Linux, opened at run time (see its header):
        // building needs <curl/curl.h> (Debian's libcurl4-openssl-dev), running libcurl.so.4
        // (HTTP/2 through nghttp2, TLS through OpenSSL).
        .target(
            name: "CCurl",
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]
        ),
        // The core library, in layers the build keeps apart: each target names only those below it,
        // and `ImgCache` re-exports them, so an app imports one module (Exports.swift).
        //   ImgCacheSupport  files, locks, JSON, hashing, clocks
        //   ImgCacheURLs     the WHATWG URL parser and origins
        //   ImgCacheMarkup   encodings, the libxml2 scanner, references, responsive choice, rewriting
        //   ImgCacheStore    the cache folder and its index
        //   ImgCache         downloader, notifier, page and site pipeline
        .target(
            name: "ImgCacheSupport",
            swiftSettings: strictSettings
        ),
        .target(
            name: "ImgCacheURLs",
            dependencies: ["ImgCacheSupport"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "ImgCacheMarkup",
            dependencies: [
                "ImgCacheSupport", "ImgCacheURLs",
                .target(name: "CLibXML2", condition: .when(platforms: otherPlatforms)),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings,
            linkerSettings: [
                .linkedLibrary("xml2", .when(platforms: applePlatforms)),
                .linkedLibrary("iconv", .when(platforms: applePlatforms)),
            ]
        ),
        .target(
            name: "ImgCacheStore",
            dependencies: [
                "ImgCacheSupport", "ImgCacheURLs", "ImgCacheMarkup",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "ImgCache",
            dependencies: ["ImgCacheSupport", "ImgCacheURLs", "ImgCacheMarkup", "ImgCacheStore"],
            // The privacy manifest an app's upload needs for the required-reason APIs the library
            // calls (stat, fstat, lstat: file timestamps, C617.1); PrivacyManifestTests checks it
            // against the sources of every layer.
            resources: [.copy("PrivacyInfo.xcprivacy")],
            swiftSettings: strictSettings
        ),
        // The AsyncHTTPClient transport and the certificate diagnosis both command-line transports
        // use, kept apart so apps can do without them.
        .target(
            name: "ImgCacheHTTPClient",
            dependencies: [
                "ImgCache",
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["CommandLine"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["CommandLine"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["CommandLine"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["CommandLine"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["CommandLine"])),
                .product(name: "X509", package: "swift-certificates", condition: .when(traits: ["CommandLine"])),
            ],
            swiftSettings: strictSettings
        ),
        // The libcurl transport, what the command line uses on Linux: libcurl's multi interface on
        // a thread of its own, libcurl opened at run time (CCurl).
        .target(
            name: "ImgCacheCurl",
            dependencies: [
                "ImgCache",
                "ImgCacheHTTPClient",
                .target(name: "CCurl", condition: .when(platforms: [.linux], traits: ["CommandLine"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["CommandLine"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["CommandLine"])),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: .when(traits: ["CommandLine"])),
            ],
            swiftSettings: strictSettings
        ),
        // The URLSession transport, apart so that the command line does not load FoundationNetworking
        // (on Linux: libcurl and a dozen libraries behind it, megabytes of memory before any work).
        .target(
            name: "ImgCacheURLSession",
            dependencies: ["ImgCache"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "imgcache",
            dependencies: [
                "ImgCache",
                "ImgCacheHTTPClient",
                "ImgCacheCurl",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["CommandLine"])),
                .product(name: "Subprocess", package: "swift-subprocess", condition: .when(traits: ["CommandLine"])),
                // `imgcache demo`'s loopback server (a plain HTTP/1.1 one; the tests' server, with its
                // proxy, hostile behaviours and HTTP/2, is not linked into the shipped binary).
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["CommandLine"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["CommandLine"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["CommandLine"])),
            ],
            swiftSettings: strictSettings,
            linkerSettings: commandLinkerSettings
        ),
        // A real HTTP server with fault injection, for the tests only.
        .target(
            name: "ImgCacheTestServer",
            dependencies: [
                // For its proxy's tunnel, the same relay the address guard uses.
                "ImgCacheHTTPClient",
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["CommandLine"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["CommandLine"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["CommandLine"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["CommandLine"])),
                .product(name: "NIOHTTP2", package: "swift-nio-http2", condition: .when(traits: ["CommandLine"])),
            ],
            swiftSettings: strictSettings
        ),
        .plugin(
            name: "LocalizeImages",
            capability: .command(
                intent: .custom(verb: "localize-images",
                                description: "Localise the images of pages and site folders (imgcache fetch, same arguments)"),
                permissions: [
                    .writeToPackageDirectory(reason: "imgcache writes the localised pages and the images' cache folder"),
                    .allowNetworkConnections(scope: .all(), reason: "imgcache downloads the images the pages refer to"),
                ]),
            dependencies: ["imgcache"]
        ),
        .testTarget(
            name: "ImgCacheTests",
            dependencies: [
                "ImgCache", "ImgCacheHTTPClient", "ImgCacheCurl", "ImgCacheURLSession", "ImgCacheTestServer", "imgcache",
                // The tests also speak to the test servers directly.
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["CommandLine"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["CommandLine"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["CommandLine"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["CommandLine"])),
                .product(name: "X509", package: "swift-certificates", condition: .when(traits: ["CommandLine"])),
                .product(name: "Subprocess", package: "swift-subprocess", condition: .when(traits: ["CommandLine"])),
                .product(name: "SystemPackage", package: "swift-system",
                         condition: .when(platforms: [.linux, .windows, .android, .wasi], traits: ["CommandLine"])),
            ],
            swiftSettings: strictSettings
        ),
    ]
)

