#!/usr/bin/env bash
# Responsive benchmark: requests and bytes per page when imgcache localises responsive images with no
# device profile, for a phone, for a desktop and for three devices together, beside wget2 -p -k, on a
# generated site of 40 pages (srcset by width and density, <picture> by type and by media) served by a
# local nginx over HTTPS + HTTP/2 behind the 25 ms-each-way latency relay; or (--real-pages) the same
# imgcache cases over the 313 saved real pages through a catch-all proxy. See
# Benchmarks/responsive/README.md.
#
# usage: bash Benchmarks/responsive/run.sh [--runs N] [--latency-ms MS] [--keep] [--wait-idle S]
#                                          [--tool-timeout S] [--relay c|python] [--peers-only]
#                                          [--real-pages [DIR]] [--limit N]
#   --runs N          timed runs per case (the first also gives the counts); best wall time and
#                     median CPU time reported (default 3; 1 with --real-pages)
#   --latency-ms MS   the relay's one-way delay (default 25: 50 ms round trip)
#   --keep            keep the temp folders (site, outputs, logs) and print their paths
#   --wait-idle S     before each round, wait while other work keeps the CPUs busy, S seconds in all (default 60)
#   --tool-timeout S  each tool run (each page with --real-pages) is killed after S seconds (default 300)
#   --relay c|python  the relay implementation (default c: Benchmarks/fetch/latency_relay.c, built with gcc)
#   --peers-only      wget2 only (no imgcache)
#   --real-pages [DIR]  real saved pages instead of the generated site: DIR (default ../shared/pages
#                     from the repository root, i.e. /work/shared/pages) with its base_urls.json, each
#                     page through Benchmarks/responsive/catchall_proxy.py; no nginx, no relay, no wget2
#   --limit N         --real-pages: only the first N pages (by file name), for a quick try
# IMGCACHE_BIN=/path/to/imgcache uses that binary instead of building one. A build whose fetch --help
# has no --device gets "n/a: this build has no --device" in the device rows.
# Run from the repository root. Only ever talks to 127.0.0.1.
set -euo pipefail

# The options, setup, timing and cleanup it shares with Benchmarks/site/run.sh.
source "$(dirname "$0")/../common/bench.sh"
REAL_PAGES=""
LIMIT=0
RUNS_GIVEN=0
for arg in "$@"; do [ "$arg" != --runs ] || RUNS_GIVEN=1; done
own_option() { # option [value] → OPT_ARGS; fails on an option it does not know
    case "$1" in
        --real-pages)
            if [ $# -ge 2 ] && [ "${2#--}" = "$2" ]; then REAL_PAGES=$2; OPT_ARGS=2; else REAL_PAGES=DEFAULT; OPT_ARGS=1; fi ;;
        --limit) LIMIT=$2; OPT_ARGS=2 ;;
        *) return 1 ;;
    esac
}
parse_options "$@"
[[ "$LIMIT" =~ ^[0-9]+$ ]] || { echo "--limit needs a whole number" >&2; exit 64; }
cd "$(dirname "$0")/../.."
HERE=Benchmarks/responsive
if [ "$REAL_PAGES" = DEFAULT ]; then REAL_PAGES=$(cd .. && pwd)/shared/pages; fi
if [ -n "$REAL_PAGES" ]; then
    [ -f "$REAL_PAGES/base_urls.json" ] || { echo "no $REAL_PAGES/base_urls.json" >&2; exit 64; }
    [ "$RUNS_GIVEN" = 1 ] || RUNS=1
fi
PAGES=40
THREADS=16              # wget2's --max-threads, as in the site benchmark
SLOW_REPEAT=120         # a case whose first run takes longer than this is not repeated
LABEL_WIDTH=16          # timed's label column: three-devices-3
COUNT_REPEATS=1         # the access log has the method and URI at $6 $7 (nginx.conf.template)

# The cases, in the table's order. Device rows need a build with fetch --device.
CASES=(none phone desktop three wget2)
declare -A CASE_DEVICES=(
    [none]=""
    [phone]="--device 390x844@3"
    [desktop]="--device 1280x800@1"
    [three]="--device 390x844@3 --device 820x1180@2 --device 1280x800@1"
    [wget2]=""
)

# MARK: - 1. Install what is missing (Debian packages; cryptography from pip for the proxy)

ensure_tools " (readiness and relay probes)"
if [ -z "$REAL_PAGES" ]; then
    ensure_wget2 "its row is skipped"
    ensure_relay_compiler "using"
else
    HAVE_WGET2=0
    if ! python3 -c 'import cryptography' 2>/dev/null; then
        say "Installing cryptography (pip) for catchall_proxy.py…"
        python3 -m pip install -q cryptography >&2 || { say "catchall_proxy.py needs Python's cryptography package"; exit 1; }
    fi
fi
ensure_build_deps

# MARK: - 2. Temp folders, the test CA

make_temp_dirs respbench 0
make_ca responsive   # a throwaway CA and server certificate (see bench.sh); TLS/ca.key signs the proxy's

# MARK: - 3. imgcache, and whether it has --device

HAVE_IMGCACHE=0
HAVE_DEVICE=0
SKIP_REASON="--peers-only"
if [ "$PEERS_ONLY" = 0 ]; then
    find_imgcache
    if ! grep -q 'USAGE: imgcache fetch' <<<"$FETCH_HELP"; then
        SKIP_REASON="'imgcache fetch' does not exist in this build"
    elif [ -z "$REAL_PAGES" ] && ! grep -q -e 'SITE_DIR' -e '--no-copy' <<<"$FETCH_HELP"; then
        SKIP_REASON="this build's 'imgcache fetch' has no site mode (no SITE_DIR / --no-copy in fetch --help)"
    else
        HAVE_IMGCACHE=1
    fi
    [ "$HAVE_IMGCACHE" = 1 ] || loud "$SKIP_REASON: imgcache rows SKIPPED"
    # Into a variable first (FETCH_HELP), not `imgcache fetch --help | grep -q`: see find_imgcache.
    if grep -q -- '--device' <<<"$FETCH_HELP"; then HAVE_DEVICE=1; else say "this build has no --device: device rows n/a"; fi
fi
RUN_CASES=()
for c in "${CASES[@]}"; do
    case "$c" in
        none) [ "$HAVE_IMGCACHE" = 1 ] && RUN_CASES+=("$c") ;;
        wget2) [ "$HAVE_WGET2" = 1 ] && RUN_CASES+=("$c") ;;
        *) [ "$HAVE_IMGCACHE" = 1 ] && [ "$HAVE_DEVICE" = 1 ] && RUN_CASES+=("$c") ;;
    esac
done
[ ${#RUN_CASES[@]} -gt 0 ] || { say "nothing to run"; exit 1; }
device_args() { read -r -a DEVICE_ARGS <<<"${CASE_DEVICES[$1]}"; }   # case → DEVICE_ARGS (an array)

common_case_meta() {
    local c
    if [ -n "$REAL_PAGES" ]; then meta mode real; else meta mode generated; fi
    meta cores "$(nproc)"
    meta busy "$BUSY_BEFORE" "$BUSY_AFTER"
    meta elapsed "$ELAPSED"
    meta runs "$RUNS"
    meta have_device "$HAVE_DEVICE"
    if [ "$HAVE_IMGCACHE" = 1 ]; then meta imgcache available; else meta imgcache "$SKIP_REASON"; fi
    if [ "$HAVE_WGET2" = 1 ]; then meta wget2 available; else meta wget2 "not run"; fi
    meta bin "${BIN:-}"
    for c in "${CASES[@]}"; do meta devices "$c" "${CASE_DEVICES[$c]}"; done
}

# MARK: - Real pages (--real-pages): the catch-all proxy, imgcache on each page

if [ -n "$REAL_PAGES" ]; then
    PROXY_PID=
    stop_proxy() { stop_pid "$PROXY_PID"; PROXY_PID=; }
    trap 'stop_proxy; cleanup' EXIT
    PROXY_LOG="$SHM/proxy.log"
    : > "$PROXY_LOG"
    python3 "$HERE/catchall_proxy.py" --ca-cert "$CA" --ca-key "$TLS/ca.key" --log "$PROXY_LOG" \
        --certs "$WORK/proxy-certs" >"$WORK/proxy.out" 2>"$WORK/proxy.err" &
    PROXY_PID=$!
    for _ in $(seq 100); do grep -q '^ready' "$WORK/proxy.out" 2>/dev/null && break; sleep 0.1; done
    grep -q '^ready' "$WORK/proxy.out" || { say "catchall_proxy.py did not start:"; cat "$WORK/proxy.err" >&2; exit 1; }
    PROXY_PORT=$(awk '/^ready/ { print $2 }' "$WORK/proxy.out")
    say "catch-all proxy (pid $PROXY_PID) on 127.0.0.1:$PROXY_PORT; pages from $REAL_PAGES"
    # Through the proxy, a made-up https URL must come back as an image signed by the test CA.
    curl -sf -o /dev/null --max-time 10 --proxy "http://127.0.0.1:$PROXY_PORT" --cacert "$CA" \
        "https://images.example.com/probe-640w.jpg" || { say "the proxy does not answer through TLS"; exit 1; }
    : > "$PROXY_LOG"

    wait_idle
    BUSY_BEFORE=$(cpu_busy)
    START=$(date +%s)
    for round in $(seq "$RUNS"); do
        say ""
        say "Round $round/$RUNS (each case over every page)…"
        wait_idle
        for c in $(rotated "$round" "${RUN_CASES[@]}"); do
            device_args "$c"
            say "  $c ${CASE_DEVICES[$c]}"
            keep=()
            if [ "$KEEP" = 1 ] && [ "$round" = 1 ]; then keep=(--keep); fi
            # In the background and waited for, so that a signal to this script is acted on at once
            # (cleanup stops it: TOOL_PID).
            python3 "$HERE/real_pages.py" --pages "$REAL_PAGES" --bin "$BIN" --proxy "http://127.0.0.1:$PROXY_PORT" \
                --cacert "$CA" --proxy-log "$PROXY_LOG" --out "$SHM/out" --case "$c" --round "$round" \
                --results "$RESULTS" --limit "$LIMIT" --timeout "$TOOL_TIMEOUT" "${keep[@]}" -- "${DEVICE_ARGS[@]}" \
                </dev/null 2>"$WORK/real-$c-$round.err" &
            TOOL_PID=$!
            set +e; wait "$TOOL_PID"; rc=$?; set -e
            TOOL_PID=
            [ "$rc" = 0 ] || { say "real_pages.py failed (exit $rc):"; tail -5 "$WORK/real-$c-$round.err" >&2; exit 1; }
            say "  $(tail -1 "$WORK/real-$c-$round.err")   (pages that exited non-zero: $WORK/real-$c-$round.err)"
        done
    done
    ELAPSED=$(( $(date +%s) - START ))
    BUSY_AFTER=$(cpu_busy)
    stop_proxy
    common_case_meta
    meta pages_dir "$REAL_PAGES"
    meta limit "$LIMIT"
    meta proxy_stats "$(tail -1 "$WORK/proxy.err" 2>/dev/null || true)"
    meta cmd real none "imgcache fetch PAGE --base-url URL --out OUT --proxy http://127.0.0.1:PORT --cacert CA.pem --quiet"
    python3 "$HERE/report.py" "$RESULTS" "$META"
    exit 0
fi

# MARK: - 4. nginx on 127.0.0.1 (HTTPS + HTTP/2), the latency relay

serve_site_over_relay   # the site's pages without their images in SITE_DIR, nginx's root in ROOT (see bench.sh)

# MARK: - 5. The site (its absolute URLs name the relay's port, so it is made now)

BASE_URL="https://127.0.0.1:$RELAY_PORT/site/"
say "Generating the site…"
SITE_LINE=$(python3 "$HERE/make_site.py" "$ROOT" "$SITE_DIR" --origin "https://127.0.0.1:$RELAY_PORT" --prefix /site/ \
    --pages "$PAGES")
say "$SITE_LINE"
URLS="$ROOT/urls.txt"
if [ -d "$SITE_DIR/img" ]; then say "bug: $SITE_DIR has img/"; exit 1; fi
RELAY_SANITY+=("without the relay, TLS 1.3:      $(probe "https://127.0.0.1:$TLS_PORT/site/index.html")")
RELAY_SANITY+=("through the relay, TLS 1.3 + h2: $(probe "${BASE_URL}index.html")   expected: TLS ~1 RTT = $RTT ms, total ~2 RTT")
for line in "${RELAY_SANITY[@]}"; do say "  $line"; done
: > "$ACCESS_LOG"

# MARK: - 6. Timing

# The commands, as arrays (CMD) so that no path is split. case_cmd case OUT
case_cmd() {
    local c=$1 out=$2
    case "$c" in
        wget2) CMD=(wget2 -p -k "--max-threads=$THREADS" --http2 "--ca-certificate=$CA" -q -nH --cut-dirs=1
                    -P "$out" -i "$URLS") ;;
        *) device_args "$c"
           CMD=("$BIN" fetch "$SITE_DIR" --base-url "$BASE_URL" --out "$out" --cacert "$CA" --quiet "${DEVICE_ARGS[@]}") ;;
    esac
}

# run_one case round: one timed run; its requests and bytes (all, and images only) from the access
# log, and the image files it wrote (everything but pages, manifests, lists and hidden files such as
# the cache's index) from its output.
run_one() {
    local c=$1 round=$2 out off counts files
    [ -z "${FAILED[$c]:-}" ] || return 0
    [ -z "${SLOW[$c]:-}" ] || return 0
    out="$SHM/out-$c-$round"
    rm -rf "$out"
    case_cmd "$c" "$out"
    off=$(stat -c %s "$ACCESS_LOG")
    timed "$c-$round" "${CMD[@]}"
    counts=$(tail -c +$((off + 1)) "$ACCESS_LOG" | awk '{ n++; b += $9; if ($7 ~ /^\/site\/img\//) { i++; ib += $9 } }
        END { printf "%d\t%d\t%d\t%d", n, b, i, ib }')
    files=$(find "$out" -type f ! -name '.*' ! -name '*.html' ! -name '*.htm' ! -name '*.json' ! -name '*.txt' -printf '%s\n' 2>/dev/null |
        awk '{ n++; b += $1 } END { printf "%d\t%d", n, b }')
    local IFS=$'\t'
    printf '%s\n' "$c	$round	$T_RC	$T_S	$T_U	$T_SYS	$T_KB	$counts	$files	$T_CONNS	$T_PROTO	$T_STATUS	${T_ERR//$'\t'/ }" >> "$RESULTS"
    unset IFS
    if [ "$T_RC" != 0 ]; then
        FAILED[$c]=$T_ERR
        FAILURES+=("$c: $T_ERR")
        say "    -> $c is not run again"
    fi
    not_again_if_slow "$c"
    if [ "$KEEP" = 1 ] && [ "$round" = 1 ]; then return 0; fi   # --keep: keep each case's first output
    rm -rf "$out"
}

wait_idle
BUSY_BEFORE=$(cpu_busy)
find "$ROOT" "$SITE_DIR" -type f -exec cat {} + >/dev/null   # every file in the page cache, for all alike
START=$(date +%s)
for round in $(seq "$RUNS"); do
    say ""
    say "Round $round/$RUNS (outputs on tmpfs)…"
    wait_idle
    for c in $(rotated "$round" "${RUN_CASES[@]}"); do run_one "$c" "$round"; done
done
ELAPSED=$(( $(date +%s) - START ))

# MARK: - 7. Report

BUSY_AFTER=$(cpu_busy)
stop_relay
stop_pid "$NGINX_PID"; NGINX_PID=
common_case_meta
meta pages "$PAGES"
meta site "$SITE_LINE"
meta expected "$ROOT/expected.json"
meta latency_ms "$LATENCY_MS"
meta nginx "$NGINX_VERSION"
meta relay "$RELAY_IMPL"
for line in "${RELAY_SANITY[@]}"; do meta sanity "$line"; done
for c in none wget2; do
    [ -n "${BIN:-}" ] || BIN=imgcache
    case_cmd "$c" OUT
    cmdline=$(shown_cmd)
    cmdline=${cmdline//"$SITE_DIR"/SITE_DIR}
    cmdline=${cmdline//"$URLS"/urls.txt}
    cmdline=${cmdline//"127.0.0.1:$RELAY_PORT"/127.0.0.1:RELAY_PORT}
    meta cmd generated "$c" "$cmdline"
done
python3 "$HERE/report.py" "$RESULTS" "$META"
exit_if_failures
