#!/usr/bin/env bash
# Scripts/check-apple.sh --dry-run on this machine (Linux in CI): it generates the app's and the
# site's packages as on a Mac, runs what needs no Xcode and prints the rest. Checks that it exits
# 0; that each ```swift block of the README, GettingStarted.md and WebViews.md is in a file of its
# own, verbatim once the lines marked `// check-apple: wrapper` are taken out (found here with awk,
# independently of the script's extractor), the manifest fragments inside the app's Package.swift;
# that the dependency checks ran and passed; that the Mac commands printed include the iOS
# Simulator `xcodebuild test`, the Mac Catalyst build and the localize-images run; and that no
# Swift code was built. Prints `N passed, M failed`; exits non-zero on a failure. About 5 s with
# the packages already in SwiftPM's cache, 20 s without.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
work=$(mktemp -d "${TMPDIR:-/tmp}/imgcache-apple-dry.XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0; failed=0
check() { # description, then a command that succeeds when it holds
    local what=$1; shift
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: $what" >&2; fi
}
contains() { # FILE PART: the text of PART occurs in FILE
    [[ "$(cat "$1")" == *"$(cat "$2")"* ]]
}

echo "== Scripts/check-apple.sh --dry-run"
Scripts/check-apple.sh --dry-run --work "$work/out" > "$work/log" 2>&1
status=$?
check "the dry run exits 0 (it was $status): $(grep -E 'FAILED|error' "$work/log" | head -10)" [ "$status" = 0 ]
check "the dry run reports no failed step" grep -q '^[0-9]* passed, 0 failed$' "$work/log"

echo "== the documentation's samples, verbatim"
tsv=$work/out/samples.tsv
check "the script lists the samples it wrote" [ -s "$tsv" ]
total=0
for doc in README.md Sources/ImgCache/ImgCache.docc/GettingStarted.md Sources/ImgCache/ImgCache.docc/WebViews.md; do
    rm -rf "$work/blocks"; mkdir "$work/blocks"
    awk -v out="$work/blocks" '
        !inside && $0 ~ /^[ \t]*```swift[ \t]*$/ { inside = 1; n++; printf "" > (out "/" n); next }
        inside && $0 ~ /^[ \t]*```[ \t]*$/ { inside = 0; close(out "/" n); next }
        inside { print >> (out "/" n) }' "$doc"
    count=$(find "$work/blocks" -type f | wc -l)
    listed=$(awk -F'\t' -v doc="$doc" '$1 == doc' "$tsv" | wc -l)
    check "$doc: $count swift blocks, $listed sample files" [ "$count" = "$listed" ]
    check "$doc has a swift block" [ "$count" -gt 0 ]
    for ((n = 1; n <= count; n++)); do
        total=$((total + 1))
        file=$(awk -F'\t' -v doc="$doc" -v n="$n" '$1 == doc && $2 == n { print $6 }' "$tsv")
        check "$doc block $n has a file ($file)" [ -f "$work/out/${file:-none}" ]
        [ -f "$work/out/${file:-none}" ] || continue
        check "$doc block $n is verbatim in $file" \
            cmp -s "$work/blocks/$n" <(grep -v ' // check-apple: wrapper$' "$work/out/$file")
        case $file in
            app/ManifestSamples/*)
                check "$doc block $n (a manifest fragment) is in the app's Package.swift" \
                    contains "$work/out/app/Package.swift" "$work/out/$file" ;;
            app/Sources/AppPages/*|site/Sources/ToolSamples/*) ;;
            *) check "$doc block $n is in a target's sources: $file" false ;;
        esac
    done
done
check "every sample file is listed ($total)" \
    [ "$(find "$work/out/app/Sources" "$work/out/site/Sources" "$work/out/app/ManifestSamples" -path '*DocSamples/*.swift' -o -path '*ManifestSamples/*.swift' | wc -l)" = "$total" ]
check "WebKit samples are wrapped in #if canImport(WebKit)" \
    grep -q '^#if canImport(WebKit) // check-apple: wrapper$' "$work/out/app/Sources/AppPages/DocSamples/WebViews-3.swift"
check "the app's package refers to the checkout by the path imgcache, with traits off" \
    grep -qF '.package(path: "imgcache", traits: [])' "$work/out/app/Package.swift"
check "the app's package declares the products whose schemes are built" \
    grep -qF '.library(name: "AppPages"' "$work/out/app/Package.swift"
check "the fixture pages are in the app's test target" \
    cmp -s fixtures/rewrite/gbk.html "$work/out/app/Tests/AppPagesTests/rewrite/gbk.html"

echo "== the dependency checks"
check "the app's package resolved" grep -q "^ok: the app's package (traits off) resolves" "$work/log"
check "the app's package lists none of the command line's dependencies" \
    grep -q "^dependency check passed (none of: swift-nio async-http-client swift-argument-parser swift-subprocess swift-nio-ssl swift-nio-http2 swift-certificates swift-system)" "$work/log"
check "the site package lists all of them" grep -q "^dependency check passed (all of:" "$work/log"

echo "== the Mac commands, printed"
check "xcodebuild test on an iOS Simulator" \
    grep -qE "^dry-run: .*xcodebuild test .*-scheme App-Package -destination 'platform=iOS Simulator," "$work/log"
check "the Mac Catalyst build" \
    grep -qF "xcodebuild build -quiet -scheme AppPages -destination 'generic/platform=macOS,variant=Mac Catalyst'" "$work/log"
check "the localize-images run" \
    grep -qE "^dry-run: .*swift package --allow-writing-to-package-directory --allow-network-connections all localize-images Web-src" "$work/log"
check "swift test of the app's package on macOS" grep -qE "^dry-run: \(cd [^ ]*/app && swift test\)" "$work/log"
check "nothing was built" [ -z "$(find "$work/out/app/.build" "$work/out/site/.build" -name '*.swiftmodule' 2>/dev/null | head -1)" ]

[ "$failed" = 0 ] || { echo "--- the dry run's output:"; cat "$work/log"; }
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
