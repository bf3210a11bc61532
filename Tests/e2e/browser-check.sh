#!/usr/bin/env bash
# End-to-end browser check: `imgcache demo` localises the bundled article from a server on
# 127.0.0.1, then headless Chromium opens the rewritten page from the file system with networking
# disabled and checks that every image renders (except the one missing by design) and that no
# request left the machine. Installs Debian's chromium (and python3) when missing.
# The last line is `N passed, M failed`; the exit status is non-zero on any failure.
# Set KEEP=1 to keep the work folder (demo output, net log, browser log).
set -uo pipefail
cd "$(dirname "$0")/../.."

MISSING=images/gallery-5.jpg   # DemoScenario.bundled.missing
started=$(date +%s)

fail() {
    echo "browser-check: $*" >&2
    echo "0 passed, 1 failed"
    exit 1
}

missing_packages=()
command -v chromium >/dev/null 2>&1 || missing_packages+=(chromium)
command -v python3 >/dev/null 2>&1 || missing_packages+=(python3)
if ((${#missing_packages[@]})); then
    echo "Installing ${missing_packages[*]}…" >&2
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing_packages[@]}" >/dev/null; } \
        || fail "could not install ${missing_packages[*]}"
fi
installed=$(date +%s)

swift build --product imgcache >&2 || fail "swift build failed"
imgcache="$(swift build --show-bin-path)/imgcache"
built=$(date +%s)

work=$(mktemp -d "${TMPDIR:-/tmp}/imgcache-browser-check.XXXXXX")
if [[ "${KEEP:-0}" == 1 ]]; then echo "work folder: $work" >&2; else trap 'rm -rf "$work"' EXIT; fi

echo "install: $((installed - started)) s, build: $((built - installed)) s" >&2
python3 Tests/e2e/browser_check.py --imgcache "$imgcache" --missing "$MISSING" --chromium "$(command -v chromium)" --work "$work"
