#!/usr/bin/env bash
# Builds the DocC archive of ImgCache, with the API of the layers it re-exports
# (ImgCacheSupport, ImgCacheURLs, ImgCacheMarkup, ImgCacheStore) as its own, as an app sees it.
#
# Not swift-docc-plugin's generate-documentation: its symbol graphs leave out what a module
# re-exports (swift-docc-plugin#113), so every type of a lower layer would be missing and every
# link to it broken. swift-symbolgraph-extract can include them (-experimental-allowed-reexported-modules,
# swiftlang/swift#73080), and docc reads the graph it writes. Xcode's documentation build includes
# re-exported symbols by itself.
#
# usage: Scripts/build-docs.sh [--preview] [docc convert options…]
#   Needs a debug build (`swift build --target ImgCache`, or the tests' build). Writes
#   .build/ImgCache.doccarchive; --preview serves it at http://localhost:8080 instead.
# Linux: the libxml2 module map is the CLibXML2 target's (on Apple platforms the SDK has its own).
set -euo pipefail
cd "$(dirname "$0")/.."
preview=false
if [ "${1:-}" = --preview ]; then preview=true; shift; fi
bin=$(swift build --show-bin-path)
[ -d "$bin/Modules/ImgCache.swiftmodule" ] || [ -f "$bin/Modules/ImgCache.swiftmodule" ] || swift build --target ImgCache
triple=$(swift -print-target-info | sed -n 's/.*"unversionedTriple": "\(.*\)".*/\1/p' | head -1)
graphs=$(mktemp -d); trap 'rm -rf "$graphs"' EXIT
swift-symbolgraph-extract -module-name ImgCache -target "$triple" -I "$bin/Modules" \
    -minimum-access-level public -skip-inherited-docs -output-dir "$graphs" \
    -experimental-allowed-reexported-modules=ImgCacheSupport,ImgCacheURLs,ImgCacheMarkup,ImgCacheStore \
    -Xcc -fmodule-map-file="$PWD/Sources/CLibXML2/module.modulemap" \
    $(pkg-config --cflags-only-I libxml-2.0 | sed 's/-I/-Xcc -I/g')
verb=convert; $preview && verb=preview
docc "$verb" Sources/ImgCache/ImgCache.docc --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name ImgCache --fallback-bundle-identifier ImgCache \
    --output-path .build/ImgCache.doccarchive "$@"
