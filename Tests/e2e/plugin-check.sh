#!/usr/bin/env bash
# The `localize-images` command plugin, run as an app's package runs it: a package that depends on
# imgcache by path localises its site folder with `swift package … localize-images`, from a server
# on 127.0.0.1. Checks the exit status, the rewritten page and the image bytes, then that a missing
# image gives status 2 and names its URL. Prints `N passed, M failed`; exits non-zero on a failure.
#
# The package shares this checkout's build folder (--scratch-path), so the plugin's tool is the
# `imgcache` that `swift test` built (about 20 s instead of a second full build).
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/imgcache-plugin.XXXXXX")
server=
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
passed=0; failed=0
check() { # description, then a command that succeeds when it holds
    local what=$1; shift
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: $what" >&2; fi
}

mkdir -p "$work/server/images" "$work/app/Web-src/css"
python3 - "$work/server/images" <<'PY'
import struct, sys, zlib
def png(width, height):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\0" + b"\x80\x20\x10" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
open(sys.argv[1] + "/a.png", "wb").write(png(3, 2))
open(sys.argv[1] + "/bg.png", "wb").write(png(1, 1))
PY
python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$work/server" > "$work/server.log" 2>&1 &
server=$!
port=
for _ in $(seq 100); do
    port=$(sed -n 's/.* port \([0-9]*\).*/\1/p' "$work/server.log" | head -1)
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || { echo "the test server did not start: $(cat "$work/server.log")" >&2; exit 1; }

cat > "$work/app/Package.swift" <<SWIFT
// swift-tools-version:6.2
import PackageDescription

let package = Package(
    name: "AppWeb",
    dependencies: [.package(path: "$repo")]
)
SWIFT
printf '<!doctype html><link rel=stylesheet href=css/site.css><p><img src="/images/a.png" alt=a></p>\n' > "$work/app/Web-src/index.html"
printf 'body { background: url(/images/bg.png) }\n' > "$work/app/Web-src/css/site.css"

localize() { # arguments for imgcache fetch; prints its output into $work/out.log, returns its status
    swift package --package-path "$work/app" --scratch-path "$repo/.build" \
        --allow-writing-to-package-directory --allow-network-connections all \
        localize-images "$@" > "$work/out.log" 2>&1
}

echo "== swift package localize-images Web-src --base-url http://127.0.0.1:$port/app/ --out Web"
localize Web-src --base-url "http://127.0.0.1:$port/app/" --out Web
status=$?
check "the plugin ends with imgcache's status 0 (it was $status): $(tail -5 "$work/out.log")" [ "$status" = 0 ]
page=$(cat "$work/app/Web/index.html" 2>/dev/null)
local_png=$(printf '%s' "$page" | sed -n 's/.*<img src="\(images\/[0-9a-f]*\.png\)".*/\1/p')
check "the page refers to its image in the package's Web/images: $page" [ -n "$local_png" ]
check "the image in Web/ has the server's bytes" cmp -s "$work/app/Web/$local_png" "$work/server/images/a.png"
check "every other byte of the page is kept" \
    [ "$(printf '%s' "$page" | sed "s|$local_png|/images/a.png|")" = "$(cat "$work/app/Web-src/index.html")" ]
check "the stylesheet's image is local too" grep -q 'url(../images/[0-9a-f]*\.png)' "$work/app/Web/css/site.css"

echo "== the same with an image the server does not have"
printf '<img src="/images/missing.png">\n' > "$work/app/Web-src/index.html"
localize Web-src --base-url "http://127.0.0.1:$port/app/" --out Web
status=$?
# SwiftPM ends with 1 for any failure of a command plugin, whatever status the plugin gave
# (swiftlang/swift-package-manager#7380); the plugin's last line says imgcache's own.
check "a failure when an image could not be localised (status $status)" [ "$status" = 1 ]
check "imgcache's status 2 is told" grep -q "imgcache fetch ended with status 2" "$work/out.log"
check "the failure names the image's URL" grep -q "http://127.0.0.1:$port/images/missing.png" "$work/out.log"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
