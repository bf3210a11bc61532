#!/usr/bin/env bash
# Checks imgcache on a Mac with Xcode, which this project's own machines do not have. In order:
#  1. the package itself: `swift build` and `swift test` for macOS; the ImgCache and
#     ImgCacheURLSession schemes built for an iOS Simulator and a generic iOS device;
#  2. an app's package (generated, traits off, depending on this checkout by the path `imgcache`):
#     - resolves and lists none of swift-nio, swift-nio-ssl, swift-nio-http2, async-http-client,
#       swift-argument-parser, swift-subprocess, swift-certificates, swift-system
#       (`swift package show-dependencies --format json`, which must succeed);
#     - compiles the README's, GettingStarted.md's and WebViews.md's ```swift blocks verbatim
#       (Scripts/extract-doc-samples.py says how each is wrapped), WebKit ones included;
#     - runs a test target that rewrites every page of fixtures/rewrite/ (GBK, Shift_JIS, UTF-16
#       among them) through the public API and checks the bytes (Scripts/apple-app/), with
#       `swift test` on macOS and `xcodebuild test` on an iOS Simulator;
#     - builds for a generic iOS device and for Mac Catalyst; runs its executable on macOS;
#  3. a site package (generated, default trait): compiles the blocks that import ImgCacheHTTPClient,
#     checks that it does resolve the command line's dependencies (so that step 2's check can
#     fail), and runs `swift package … localize-images` on a page with no remote image.
# Prints each step and `N passed, M failed`; exits non-zero when anything fails.
#
# usage: Scripts/check-apple.sh [--skip-tests] [--dry-run] [--work DIR]
#   --skip-tests   no `swift test` / `xcodebuild test` (the package's suite takes a few minutes)
#   --dry-run      anywhere, Linux included: generate the packages as a real run does, run the
#                  steps that need no Xcode (sample extraction, `swift package resolve`, the
#                  dependency checks), and print the others instead of running them
#   --work DIR     generate the packages in DIR (made if missing) and keep them; default: a
#                  temporary folder, removed at the end
# Needs: macOS with Xcode 26 (Swift 6.2) or later selected (`xcode-select -p`), an iOS Simulator
# runtime, python3. Nothing here has been run on a Mac by this project yet.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
SKIP_TESTS=0; DRY_RUN=0; work=
while [ $# -gt 0 ]; do
    case $1 in
        --skip-tests) SKIP_TESTS=1 ;;
        --dry-run) DRY_RUN=1 ;;
        --work) work=${2:?--work needs a folder}; shift ;;
        *) echo "usage: Scripts/check-apple.sh [--skip-tests] [--dry-run] [--work DIR]" >&2; exit 64 ;;
    esac
    shift
done
if [ "$DRY_RUN" = 0 ] && [ "$(uname)" != Darwin ]; then
    echo "check-apple.sh runs on macOS with Xcode only (--dry-run runs anywhere)" >&2; exit 64
fi
if [ -z "$work" ]; then
    work=$(mktemp -d "${TMPDIR:-/tmp}/imgcache-apple.XXXXXX")
    trap 'rm -rf "$work"' EXIT
else
    mkdir -p "$work" && work=$(cd "$work" && pwd)
fi
app=$work/app     # traits off, as an app depends on imgcache
site=$work/site   # the default trait, as a package that runs the plugin does

passed=0; failed=0; printed=0
show() { # a command as it would be typed
    local arg out=
    for arg in "$@"; do
        if [[ $arg =~ ^[A-Za-z0-9_./:=,@+-]+$ ]]; then out+="$arg "; else out+="'${arg//\'/\'\\\'\'}' "; fi
    done
    printf '%s' "${out% }"
}
# step any|mac DIR NAME COMMAND...: runs COMMAND in DIR; a `mac` step is only printed by --dry-run.
step() {
    local where=$1 dir=$2 name=$3; shift 3
    echo "== $name"
    if [ "$DRY_RUN" = 1 ] && [ "$where" = mac ]; then
        echo "dry-run: (cd $(show "$dir") && $(show "$@"))"
        printed=$((printed + 1))
        return
    fi
    if (cd "$dir" && "$@"); then echo "ok: $name"; passed=$((passed + 1)); else echo "FAILED: $name"; failed=$((failed + 1)); fi
}

# The command line's dependencies, by package identity: an app with traits off resolves none.
CLI_PACKAGES="swift-nio async-http-client swift-argument-parser swift-subprocess swift-nio-ssl swift-nio-http2 swift-certificates swift-system"
# check_dependencies none|all: `swift package show-dependencies --format json` in the current folder
# succeeds, lists imgcache and swift-crypto, and lists none (or all) of CLI_PACKAGES.
check_dependencies() {
    local want=$1 deps name listed bad=0
    deps=$(swift package show-dependencies --format json) || { echo "show-dependencies failed"; return 1; }
    for name in imgcache swift-crypto $CLI_PACKAGES; do
        listed=0
        grep -qE "\"identity\" *: *\"$name\"" <<<"$deps" && listed=1
        case $name in
            imgcache|swift-crypto) [ "$listed" = 1 ] || { echo "not listed: $name"; bad=1; } ;;
            *) if [ "$want" = none ] && [ "$listed" = 1 ]; then echo "listed: $name"; bad=1; fi
               if [ "$want" = all ] && [ "$listed" = 0 ]; then echo "not listed: $name"; bad=1; fi ;;
        esac
    done
    [ "$bad" = 0 ] && echo "dependency check passed ($want of: $CLI_PACKAGES)"
}

# --- the packages, generated the same way for a real run and a dry run
rm -rf "$app" "$site" "$work/samples.tsv"
mkdir -p "$app/Sources/App" "$app/Sources/AppPages" "$app/Tests/AppPagesTests" \
         "$site/Sources/ToolSamples" "$site/Web-src"
# The path dependency's identity is its folder's last component: `imgcache` whatever the checkout's name.
ln -s "$ROOT" "$app/imgcache"
ln -s "$ROOT" "$site/imgcache"
cp Scripts/apple-app/AppPages.swift "$app/Sources/AppPages/"
cp Scripts/apple-app/main.swift "$app/Sources/App/"
cp Scripts/apple-app/AppPagesTests.swift Scripts/apple-app/RewriteFixtureTests.swift "$app/Tests/AppPagesTests/"
cp -R fixtures/rewrite "$app/Tests/AppPagesTests/rewrite"
printf 'import ImgCache\nimport ImgCacheHTTPClient\n' > "$site/Sources/ToolSamples/ToolSamples.swift"
printf '<!doctype html><p>A page with one image the site ships: <img src="logo.png" alt=logo></p>\n' > "$site/Web-src/index.html"
printf '\211PNG\r\n\032\n' > "$site/Web-src/logo.png"   # a file of the site: neither fetched nor rewritten

echo "== the documentation's Swift samples"
if python3 Scripts/extract-doc-samples.py "$ROOT" "$app" "$site"; then
    echo "ok: samples extracted"; passed=$((passed + 1))
else
    echo "FAILED: samples extracted"; failed=$((failed + 1))
fi

{
    cat <<'SWIFT'
// swift-tools-version:6.2
// Generated by imgcache's Scripts/check-apple.sh: an app's package, the library with traits off.
import PackageDescription

let package = Package(
    name: "App",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        // Declared, so that Xcode makes the schemes built below: AppPages, App, and App-Package.
        .library(name: "AppPages", targets: ["AppPages"]),
        .executable(name: "App", targets: ["App"]),
    ],
    dependencies: [.package(path: "imgcache", traits: [])],
    targets: [
        // The documentation's samples are in Sources/AppPages/DocSamples.
        .target(name: "AppPages", dependencies: [
            .product(name: "ImgCache", package: "imgcache"),
            .product(name: "ImgCacheURLSession", package: "imgcache"),
        ]),
        .executableTarget(name: "App", dependencies: ["AppPages"]),
        // Linked as a test bundle and run on an iOS Simulator: a library that the SDK's libxml2 or
        // iconv module leaves unlinked shows up as undefined symbols, a behaviour of Apple's
        // libxml2 or libiconv as a failed check of fixtures/rewrite.
        .testTarget(name: "AppPagesTests", dependencies: [
            "AppPages",
            .product(name: "ImgCache", package: "imgcache"),
        ], resources: [.copy("rewrite")]),
    ]
)

// The manifest fragments of the documentation (ManifestSamples/), type-checked here.
func docSampleManifestLines(_ dependency: Package.Dependency, _ products: Target.Dependency...) {}
SWIFT
    for fragment in "$app"/ManifestSamples/*.swift; do
        [ -f "$fragment" ] && { echo; cat "$fragment"; }
    done
} > "$app/Package.swift"

cat > "$site/Package.swift" <<'SWIFT'
// swift-tools-version:6.2
// Generated by imgcache's Scripts/check-apple.sh: a package that runs the localize-images plugin,
// with imgcache's default trait (CommandLine), and compiles the samples that need it.
import PackageDescription

let package = Package(
    name: "Site",
    platforms: [.macOS(.v13)],
    dependencies: [.package(path: "imgcache")],
    targets: [
        .target(name: "ToolSamples", dependencies: [
            .product(name: "ImgCache", package: "imgcache"),
            .product(name: "ImgCacheHTTPClient", package: "imgcache"),
            .product(name: "ImgCacheURLSession", package: "imgcache"),
        ]),
    ]
)
SWIFT

# --- what needs no Xcode (a dry run runs these too)
step any "$app" "the app's package (traits off) resolves" swift package resolve
step any "$app" "the app's package lists none of the command line's dependencies" check_dependencies none
step any "$site" "the site package (default trait) resolves" swift package resolve
step any "$site" "the site package lists all of them (so the check above can fail)" check_dependencies all

# --- the package itself on macOS and for iOS
step mac "$ROOT" "Xcode and Swift versions" bash -c 'xcodebuild -version && swift --version'
step mac "$ROOT" "swift build (macOS)" swift build
[ "$SKIP_TESTS" = 1 ] || step mac "$ROOT" "swift test (macOS)" swift test
for scheme in ImgCache ImgCacheURLSession; do
    step mac "$ROOT" "xcodebuild $scheme, iOS Simulator" \
        xcodebuild build -quiet -scheme "$scheme" -destination "generic/platform=iOS Simulator"
    step mac "$ROOT" "xcodebuild $scheme, iOS device" \
        xcodebuild build -quiet -scheme "$scheme" -destination "generic/platform=iOS" CODE_SIGNING_ALLOWED=NO
done

# --- the app's package: the samples compiled, the rewriting checks run, on macOS and iOS
# The first available iPhone simulator (IMGCACHE_SIMULATOR=<udid> picks another).
simulator=${IMGCACHE_SIMULATOR:-}
if [ -z "$simulator" ] && [ "$DRY_RUN" = 0 ]; then
    simulator=$(xcrun simctl list devices available | sed -nE 's/^ +iPhone[^(]*\(([0-9A-F-]{36})\).*/\1/p' | head -1)
fi
simulator_destination="platform=iOS Simulator,id=${simulator:-<the first available iPhone simulator>}"
has_schemes() { # COMMAND...: it lists the schemes Xcode makes of the app's package
    local list scheme
    list=$("$@") || return 1
    for scheme in AppPages App App-Package; do
        grep -q "\"$scheme\"" <<<"$list" || { echo "no scheme $scheme in: $list"; return 1; }
    done
}
step mac "$app" "the app's package has the schemes AppPages, App and App-Package" \
    has_schemes xcodebuild -list -json
step mac "$app" "the app's package builds on macOS, the samples included" swift build
[ "$SKIP_TESTS" = 1 ] || step mac "$app" "the fixture pages rewritten on macOS (swift test)" swift test
step mac "$app" "the app runs on macOS" swift run App
step mac "$app" "the app's library, samples included, for a generic iOS device" \
    xcodebuild build -quiet -scheme AppPages -destination "generic/platform=iOS" CODE_SIGNING_ALLOWED=NO
step mac "$app" "the app's library for Mac Catalyst" \
    xcodebuild build -quiet -scheme AppPages -destination "generic/platform=macOS,variant=Mac Catalyst"
if [ "$SKIP_TESTS" = 1 ]; then
    step mac "$app" "the app's test bundle linked for an iOS Simulator" \
        xcodebuild build-for-testing -quiet -scheme App-Package -destination "generic/platform=iOS Simulator"
else
    if [ "$DRY_RUN" = 0 ] && [ -z "$simulator" ]; then
        echo "FAILED: no iPhone simulator available (xcrun simctl list devices available)"; failed=$((failed + 1))
    fi
    step mac "$app" "the fixture pages rewritten on an iOS Simulator (xcodebuild test)" \
        xcodebuild test -quiet -scheme App-Package -destination "$simulator_destination"
fi

# --- the site package: the samples that need the CommandLine trait, and the plugin
step mac "$site" "the samples that import ImgCacheHTTPClient build (macOS, default trait)" swift build --target ToolSamples
step mac "$site" "swift package localize-images on a page with no remote image" \
    swift package --allow-writing-to-package-directory --allow-network-connections all \
    localize-images Web-src --base-url https://example.com/app/ --out Web
# The page's one image is a file of the site: nothing is downloaded, and the page is unchanged.
step mac "$site" "the plugin wrote the page, unchanged" cmp Web-src/index.html Web/index.html

if [ "$DRY_RUN" = 1 ]; then
    echo "dry run: $printed Mac step(s) printed, not run; packages in $work"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
