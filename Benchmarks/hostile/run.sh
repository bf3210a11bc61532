#!/usr/bin/env bash
# Hostile servers: `imgcache fetch` on pages whose images include ones served by a hostile server
# (hostile_server.py: headers for ever, a 1 MB header line, endless chunked bodies, Content-Length
# larger than the body, redirects to file: / ftp: / itself, stalled TLS handshakes, 200 MB images),
# each beside 50 good images. Prints per case the reason imgcache gives, the run's wall time, how
# long the hostile server was kept busy, and the process's peak RSS against a run of the 50 good
# images alone. Bounded memory: a hostile run's peak is not much above the good-only run's.
#
# usage: bash Benchmarks/hostile/run.sh [--timeout S] [--runs N] [--keep]
#   --timeout S   imgcache's --timeout (default 5)
#   --runs N      runs per case; the median wall time and the highest peak RSS are printed (default 1)
#   --keep        keep the temp folder (pages, outputs, logs) and print its path
# IMGCACHE_BIN=/path/to/imgcache uses that binary instead of building one (release, .build-release).
# Run from anywhere; needs python3 and GNU time (/usr/bin/time). Only ever talks to 127.0.0.1.
set -euo pipefail

TIMEOUT=5
RUNS=1
KEEP=0
while [ $# -gt 0 ]; do
    case "$1" in
        --timeout) TIMEOUT=$2; shift 2 ;;
        --runs) RUNS=$2; shift 2 ;;
        --keep) KEEP=1; shift ;;
        *) echo "unknown option $1 (see the head of $0)" >&2; exit 64 ;;
    esac
done
cd "$(dirname "$0")/../.."
ROOT=$PWD
HERE=$ROOT/Benchmarks/hostile
GOOD=50

[ -x /usr/bin/time ] || { echo "GNU time is needed (apt-get install time)" >&2; exit 69; }
command -v python3 >/dev/null || { echo "python3 is needed" >&2; exit 69; }

if [ -z "${IMGCACHE_BIN:-}" ]; then
    echo "building imgcache (release)…" >&2
    swift build -c release --product imgcache --scratch-path .build-release >&2
    IMGCACHE_BIN=$ROOT/.build-release/release/imgcache
fi

WORK=$(mktemp -d /tmp/imgcache-hostile.XXXXXX)
SERVER_PID=
cleanup() {
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
    if [ "$KEEP" = 1 ]; then echo "kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

python3 "$HERE/hostile_server.py" "$ROOT/fixtures/tls/server.pem" "$ROOT/fixtures/tls/server-key.pem" "$WORK/ports.json" \
    >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 100); do [ -f "$WORK/ports.json" ] && break; sleep 0.1; done
[ -f "$WORK/ports.json" ] || { echo "the hostile server did not start:" >&2; cat "$WORK/server.log" >&2; exit 70; }
port() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$WORK/ports.json" "$1"; }
HTTP=http://127.0.0.1:$(port http)
HTTPS=https://127.0.0.1:$(port https)
TLS_STALL=https://127.0.0.1:$(port tls_stall)
TLS_HALF=https://127.0.0.1:$(port tls_half_hello)

# name|absolute image URLs (space-separated): each case over HTTP and HTTPS where it can be.
both() { echo "$HTTP/h/$1 $HTTPS/h/$1"; }
CASES=(
    "headers for ever|$(both headers-forever.png)"
    "1 MB header line|$(both header-1mb.png)"
    "chunked body for ever (fast)|$(both chunked-forever.png)"
    "chunked body for ever (1 KB/100 ms)|$(both chunked-forever-slow.png)"
    "Content-Length > body, close|$(both short-body-close.png)"
    "Content-Length > body, silence|$(both short-body-silent.png)"
    "no answer|$(both silent.png)"
    "redirect to file:///etc/passwd|$(both redirect-file.png)"
    "redirect to ftp:|$(both redirect-ftp.png)"
    "redirect to itself|$(both redirect-self.png)"
    "200 MB image, Content-Length|$(both 200mb-declared.png)"
    "200 MB image, chunked|$(both 200mb-chunked.png)"
    "TLS handshake: no ServerHello|$TLS_STALL/h/tls-stall.png"
    "TLS handshake: half a ServerHello|$TLS_HALF/h/tls-half-hello.png"
)

good_images() {
    for i in $(seq 1 $GOOD); do
        if [ $((i % 2)) = 0 ]; then echo "<img src=\"$HTTP/good/$i.png\">"; else echo "<img src=\"$HTTPS/good/$i.png\">"; fi
    done
}

# run LABEL URLS...: one fetch of a page with the good images and URLS; appends a line to results.tsv:
# label, exit status, wall seconds, peak RSS KB, failure lines, images cached
run() {
    local label=$1; shift
    local dir=$WORK/run-$(echo "$label" | tr -c 'A-Za-z0-9' '-')
    rm -rf "$dir"; mkdir -p "$dir"
    { good_images; for url in "$@"; do echo "<img src=\"$url\">"; done; } >"$dir/page.html"
    curl -s --max-time 20 "$HTTP/__stats" >/dev/null  # reset the server's counters
    local status=0
    /usr/bin/time -v -o "$dir/time.txt" "$IMGCACHE_BIN" fetch "$dir/page.html" --base-url "$HTTP/" --out "$dir/out" \
        --cacert "$ROOT/fixtures/tls/ca.pem" --timeout "$TIMEOUT" --quiet >"$dir/stdout" 2>"$dir/stderr" || status=$?
    curl -s --max-time 20 "$HTTP/__stats" >"$dir/stats.json"
    local wall rss cached
    wall=$(python3 - "$dir/time.txt" <<'EOF'
import sys
for line in open(sys.argv[1]):
    if "Elapsed (wall clock)" in line:
        parts = line.rsplit(" ", 1)[1].strip().split(":")
        print(round(sum(float(p) * 60 ** i for i, p in enumerate(reversed(parts))), 2))
EOF
)
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$dir/time.txt")
    cached=$(find "$dir/out/images" -maxdepth 1 -type f ! -name '.*' 2>/dev/null | wc -l)
    leftovers=$(find "$dir/out/images" -maxdepth 1 -name '.tmp-*' 2>/dev/null | wc -l)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$status" "$wall" "$rss" "$cached" "$leftovers" "$dir" >>"$WORK/results.tsv"
}

: >"$WORK/results.tsv"
for r in $(seq "$RUNS"); do
    run "good only"
    for entry in "${CASES[@]}"; do
        # shellcheck disable=SC2086
        run "${entry%%|*}" ${entry#*|}
    done
    all=()
    for entry in "${CASES[@]}"; do all+=(${entry#*|}); done
    run "all hostile at once" "${all[@]}"
done

python3 "$HERE/report.py" "$WORK/results.tsv" "$GOOD" "$TIMEOUT"
