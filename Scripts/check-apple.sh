#!/usr/bin/env bash
# Checks imgcache on a Mac with Xcode, which this project's own machines do not have: builds and
# tests the package for macOS, then builds the library products for an iOS Simulator and for a
# generic iOS device, and a package that uses the library with traits off (what an app resolves).
# Prints each step and `N passed, M failed`; exits non-zero when anything fails.
#
# usage: Scripts/check-apple.sh [--skip-tests]
#   --skip-tests   build only (the suite takes a few minutes)
# Needs: macOS with Xcode 26 (Swift 6.2) or later selected (`xcode-select -p`).
set -uo pipefail
cd "$(dirname "$0")/.."
SKIP_TESTS=0
[ "${1:-}" = "--skip-tests" ] && SKIP_TESTS=1
[ "$(uname)" = Darwin ] || { echo "check-apple.sh runs on macOS with Xcode only" >&2; exit 64; }

passed=0; failed=0
step() { # name command...
    local name=$1; shift
    echo "== $name"
    if "$@"; then echo "ok: $name"; passed=$((passed + 1)); else echo "FAILED: $name"; failed=$((failed + 1)); fi
}

xcodebuild -version
swift --version
step "swift build (macOS)" swift build
[ "$SKIP_TESTS" = 1 ] || step "swift test (macOS)" swift test
for scheme in ImgCache ImgCacheURLSession; do
    step "xcodebuild $scheme, iOS Simulator" \
        xcodebuild build -quiet -scheme "$scheme" -destination "generic/platform=iOS Simulator"
    step "xcodebuild $scheme, iOS device" \
        xcodebuild build -quiet -scheme "$scheme" -destination "generic/platform=iOS" CODE_SIGNING_ALLOWED=NO
done

# An app's view: a package that depends on imgcache with its traits off, as an app target would.
app=$(mktemp -d "${TMPDIR:-/tmp}/imgcache-app.XXXXXX")
trap 'rm -rf "$app"' EXIT
mkdir -p "$app/Sources/App" "$app/Sources/AppPages" "$app/Tests/AppPagesTests"
cat > "$app/Package.swift" <<SWIFT
// swift-tools-version:6.2
import PackageDescription
let package = Package(
    name: "App",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [.package(path: "$PWD", traits: [])],
    targets: [
        .target(name: "AppPages", dependencies: [
            .product(name: "ImgCache", package: "imgcache"),
            .product(name: "ImgCacheURLSession", package: "imgcache"),
        ]),
        .executableTarget(name: "App", dependencies: ["AppPages"]),
        // Built for the iOS Simulator below: a test bundle is linked, so a library that the
        // SDK's libxml2 or iconv module leaves unlinked shows up there as undefined symbols.
        .testTarget(name: "AppPagesTests", dependencies: ["AppPages"]),
    ]
)
SWIFT
cat > "$app/Sources/AppPages/AppPages.swift" <<'SWIFT'
import Foundation
import ImgCache
import ImgCacheURLSession

public func openPage() async throws -> String {
    let folder = FileManager.default.temporaryDirectory.appending(path: "imgcache-app-check").path
    let loader = OfflinePageLoader(store: try ImageCacheStore(directory: folder), transport: URLSessionTransport())
    let page = try await loader.open(html: Array("<link rel=stylesheet href=a.css><img src=a.png>".utf8),
                                     pageURL: BrowserURL("https://example.com/blog/post.html"))
    return try String(contentsOf: page.fileURL, encoding: .utf8)
}
SWIFT
cat > "$app/Sources/App/main.swift" <<'SWIFT'
import AppPages
print(try await openPage())
SWIFT
cat > "$app/Tests/AppPagesTests/AppPagesTests.swift" <<'SWIFT'
import Testing
import AppPages

@Test func opensAPage() async throws {
    #expect(try await openPage().contains("https://example.com/blog/a.css"))
}
SWIFT
step "an app with traits off resolves no NIO" bash -c "cd '$app' && swift package resolve && ! swift package show-dependencies | grep -q swift-nio"
step "an app with traits off builds and runs" bash -c "cd '$app' && swift run App"
step "the app's package for an iOS Simulator" \
    bash -c "cd '$app' && xcodebuild build -quiet -scheme AppPages -destination 'generic/platform=iOS Simulator'"
# Linked, not only compiled: the test bundle for the simulator (the package's scheme, App-Package).
step "the app's test bundle linked for an iOS Simulator" \
    bash -c "cd '$app' && xcodebuild build-for-testing -quiet -scheme App-Package -destination 'generic/platform=iOS Simulator'"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
