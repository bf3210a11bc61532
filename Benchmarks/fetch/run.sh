#!/usr/bin/env bash
# Download benchmark: `imgcache fetch` vs wget2 and curl on the same generated site, served by a local
# nginx on 127.0.0.1, in three network settings, in one run. See Benchmarks/fetch/README.md.
#
# usage: bash Benchmarks/fetch/run.sh [--peers-only] [--runs N] [--settings 1,2,3] [--latency-ms MS]
#                                     [--disk-settings 1] [--keep] [--wait-idle S] [--tool-timeout S]
#                                     [--relay c|python]
#   --peers-only      skip building and timing imgcache (wget2 and curl only)
#   --runs N          timed runs per tool and setting; best wall time reported (default 3)
#   --settings LIST   which settings to run (default 1,2,3):
#                       1 plain HTTP/1.1 on loopback
#                       2 HTTPS with HTTP/2 on loopback
#                       3 HTTPS with HTTP/2 through latency_relay (MS each way, default 25)
#   --latency-ms MS   the relay's one-way delay in setting 3 (default 25: 50 ms round trip)
#   --disk-settings L settings whose runs are repeated with outputs on the disk (default 1; "" for none)
#   --keep            keep the temp folders (site, outputs, logs) and print their paths
#   --wait-idle S     before each round, wait while other work keeps the CPUs busy, S seconds in all (default 60)
#   --tool-timeout S  each tool run is killed after S seconds (default 300)
#   --relay c|python  the relay implementation for setting 3 (default c: latency_relay.c, built with gcc)
# IMGCACHE_BIN=/path/to/imgcache uses that binary instead of building one.
# Run from the repository root. Only ever talks to 127.0.0.1.
set -euo pipefail

# The options, setup, timing and cleanup it shares with Benchmarks/site/run.sh.
source "$(dirname "$0")/../common/bench.sh"
SETTINGS=1,2,3
DISK_SETTINGS=1
own_option() { # option value → OPT_ARGS; fails on an option it does not know
    case "$1" in
        --settings) SETTINGS=$2 ;;
        --disk-settings) DISK_SETTINGS=$2 ;;
        *) return 1 ;;
    esac
    OPT_ARGS=2
}
parse_options "$@"
[[ "$SETTINGS" =~ ^[123](,[123])*$ ]] || { echo "--settings takes a list of 1, 2, 3 (e.g. 1,3)" >&2; exit 64; }
[[ "$DISK_SETTINGS" =~ ^([123](,[123])*)?$ ]] || { echo "--disk-settings takes a list of 1, 2, 3, or \"\"" >&2; exit 64; }
cd "$(dirname "$0")/../.."
HERE=Benchmarks/fetch
IMAGES=2000
CONCURRENCY=16          # wget2's threads, and the curl row that matches imgcache's default concurrency
CURL_MANY=100           # the other curl row: --http2 --parallel-max 100, as a user after speed would
SLOW_REPEAT=60          # a tool whose first run in a setting takes longer than this is not repeated
has_setting() { [[ ",$SETTINGS," == *",$1,"* ]]; }
on_disk_too() { [[ ",$DISK_SETTINGS," == *",$1,"* ]]; }
LABEL_WIDTH=26          # timed's label column: s1-imgcache-warm-tmpfs-1

# MARK: - 1. Install what is missing (Debian packages)

ensure_tools ""
ensure_wget2 "its rows and the wget2 ratios are skipped"
if has_setting 3; then ensure_relay_compiler "setting 3 uses"; fi
ensure_build_deps
if has_setting 2 || has_setting 3; then
    # HTTP/2 in curl needs nghttp2; in wget2, its +http2 feature. Say so rather than time HTTP/1.1 unawares.
    grep -q 'HTTP2' <<<"$(curl --version)" || loud "this curl has no HTTP/2 support: its https rows will use HTTP/1.1"
    if [ "$HAVE_WGET2" = 1 ] && ! grep -q '+http2' <<<"$(wget2 --version 2>/dev/null || true)"; then
        loud "this wget2 was built without HTTP/2 (+http2 missing from wget2 --version): its https rows will use HTTP/1.1"
    fi
fi

# MARK: - 2. Temp folders, the site, the test CA

make_temp_dirs fetchbench "$DISK_SETTINGS"

ROOT="$WORK/www"
say "Generating the site…"
python3 "$HERE/make_site.py" "$ROOT" --images "$IMAGES" >&2
site_mb=$(find "$ROOT/assets" -type f -printf '%s\n' | awk '{ n += $1 } END { printf "%.1f", n / 1e6 }')

make_ca fetch   # a throwaway CA and server certificate (see bench.sh)

# MARK: - 3. nginx on 127.0.0.1 (plain HTTP, and HTTPS + HTTP/2)

pick_ports() { PORT=$(free_port); TLS_PORT=$(free_port); [ "$PORT" != "$TLS_PORT" ]; }
nginx_ready() {
    curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/__status" &&
        curl -s -o /dev/null --max-time 1 --cacert "$CA" "https://127.0.0.1:$TLS_PORT/about.html"
}
start_nginx_on_free_ports
say "nginx $NGINX_VERSION serving $ROOT on 127.0.0.1:$PORT (HTTP) and :$TLS_PORT (HTTPS + HTTP/2), pid $NGINX_PID"

# MARK: - 4. The latency relay (setting 3)

# One small request (about.html, 56 bytes) by a fresh curl, best of 3 (probe): where the round trips go.
if has_setting 3; then
    start_relay_on_free_port
    RELAY_SANITY+=("without the relay, TLS 1.3:        $(probe "https://127.0.0.1:$TLS_PORT/about.html")")
    RELAY_SANITY+=("through the relay, TLS 1.3 + h2:   $(probe "https://127.0.0.1:$RELAY_PORT/about.html")   expected: TCP connect ~0 (the relay accepts locally), TLS ~1 RTT = $RTT ms, total ~2 RTT = $(awk -v r="$RTT" 'BEGIN { print 2 * r }') ms")
    RELAY_SANITY+=("through the relay, TLS 1.2 + h2:   $(probe "https://127.0.0.1:$RELAY_PORT/about.html" --tls-max 1.2)   expected: TLS ~2 RTT, total ~3 RTT = $(awk -v r="$RTT" 'BEGIN { print 3 * r }') ms")
    for line in "${RELAY_SANITY[@]}"; do say "  $line"; done
fi

# MARK: - 5. imgcache

HAVE_IMGCACHE=0
SKIP_REASON="--peers-only"
if [ "$PEERS_ONLY" = 0 ]; then
    find_imgcache
    # ArgumentParser answers an unknown subcommand's --help with the top-level help and status 0,
    # so look for fetch's own usage line.
    if grep -q 'USAGE: imgcache fetch' <<<"$FETCH_HELP"; then
        HAVE_IMGCACHE=1
        # Not required here: a build without --cacert runs, and its https rows fail with its own message.
        grep -q -- '--cacert' <<<"$FETCH_HELP" ||
            say "note: this imgcache's 'fetch --help' does not list --cacert; its https rows will most likely fail"
    else
        SKIP_REASON="'imgcache fetch' does not exist yet in this build"
        loud "$SKIP_REASON: imgcache rows SKIPPED (peers only)"
    fi
fi

# MARK: - 6. Timing

setting_base() { # setting → the URL prefix its clients use
    case "$1" in
        1) echo "http://127.0.0.1:$PORT/" ;;
        2) echo "https://127.0.0.1:$TLS_PORT/" ;;
        3) echo "https://127.0.0.1:$RELAY_PORT/" ;;
    esac
}
# curl's -K config: one url/output pair per image.
curl_config() { # setting, OUT_DIR → config path
    local base out=$2 cfg
    base=$(setting_base "$1")
    cfg="$WORK/curl-$1-$(basename "$2").cfg"
    awk -v base="$base" -v out="$out/" \
        '{ printf "url = \"%s%s\"\noutput = \"%s%s\"\n", base, $0, out, $0 }' "$ROOT/images.txt" > "$cfg"
    echo "$cfg"
}
# The commands, as arrays (CMD) so that no path is split. tool_cmd setting tool OUT [CONFIG]
tool_cmd() {
    local s=$1 tool=$2 out=$3 cfg=${4:-CONFIG} page
    page="$(setting_base "$s")index.html"
    local tls=() curl_tls=() curl_h2=()
    if [ "$s" != 1 ]; then tls=(--cacert "$CA"); curl_tls=(--cacert "$CA"); curl_h2=(--http2); fi
    case "$tool" in
        imgcache|imgcache-warm) CMD=("$BIN" fetch "$page" --out "$out" --quiet "${tls[@]}") ;;
        # The cost of --deny-private-networks: every connection through the in-process address
        # guard (127.0.0.1 let through, since that is where the servers are).
        imgcache-deny) CMD=("$BIN" fetch "$page" --out "$out" --quiet "${tls[@]}" --deny-private-networks --allow-network 127.0.0.1) ;;
        wget2)
            if [ "$s" = 1 ]; then
                CMD=(wget2 -p -k "--max-threads=$CONCURRENCY" -q -P "$out" "$page")
            else   # --http2 is wget2's default where built in; said explicitly, as the brief asks
                CMD=(wget2 -p -k "--max-threads=$CONCURRENCY" --http2 "--ca-certificate=$CA" -q -P "$out" "$page")
            fi ;;
        curl16)  CMD=(curl "${curl_h2[@]}" --parallel --parallel-max "$CONCURRENCY" "${curl_tls[@]}" -sS --no-progress-meter --fail --create-dirs -K "$cfg") ;;
        curl100) CMD=(curl --http2 --parallel --parallel-max "$CURL_MANY" "${curl_tls[@]}" -sS --no-progress-meter --fail --create-dirs -K "$cfg") ;;
    esac
}

check() { # tool, OUT → C_OK (1 or 0), C_MSG
    local mode=--page
    case "$1" in curl*) mode=--files ;; esac
    if C_MSG=$(python3 "$HERE/check_output.py" "$ROOT" "$mode" "$2" 2>&1); then C_OK=1; else C_OK=0; fi
    C_MSG=$(tail -1 <<<"$C_MSG")
}
record() { # setting tool out round relay_ticks
    local IFS=$'\t'
    printf '%s\n' "$1	$2	$3	$4	$T_RC	$T_S	$T_U	$T_SYS	$T_KB	$T_REQ	$T_CONNS	$T_PROTO	$T_TLS	$T_STATUS	$C_OK	${C_MSG//$'\t'/ }	${T_ERR//$'\t'/ }	$5	$T_PHASES" >> "$RESULTS"
}

# run_one setting tool kind round: one timed run (plus imgcache's warm run in setting 1), checked, recorded.
run_one() {
    local s=$1 tool=$2 kind=$3 round=$4 out cfg="" r0 r1 key="$1:$2"
    [ -z "${FAILED[$key]:-}" ] || return 0
    [ -z "${SLOW[$key:$kind]:-}" ] || return 0
    if [ "$kind" = tmpfs ]; then out="$SHM/out-$s-$tool-$round"; else out="$WORK/out-$s-$tool-$round"; fi
    rm -rf "$out"
    case "$tool" in curl*) cfg=$(curl_config "$s" "$out") ;; esac
    tool_cmd "$s" "$tool" "$out" "$cfg"
    r0=$(relay_cpu)
    timed "s$s-$tool-$kind-$round" "${CMD[@]}"
    r1=$(relay_cpu)
    check "$tool" "$out"
    record "$s" "$tool" "$kind" "$round" $(( r1 - r0 ))
    if [ "$T_RC" != 0 ]; then
        FAILED[$key]=$T_ERR
        FAILURES+=("setting $s $tool ($kind): $T_ERR")
        say "    -> $tool is not run again in setting $s"
    elif [ "$C_OK" = 0 ]; then
        say "    -> incomplete output: $C_MSG"
    fi
    not_again_if_slow "$key:$kind"
    if [ "$tool" = imgcache ] && [ "$s" = 1 ] && [ "$T_RC" = 0 ]; then
        tool_cmd "$s" imgcache-warm "$out"
        timed "s$s-imgcache-warm-$kind-$round" "${CMD[@]}"
        check imgcache-warm "$out"
        record "$s" imgcache-warm "$kind" "$round" 0
        [ "$T_RC" = 0 ] || FAILURES+=("setting 1 imgcache warm run ($kind): $T_ERR")
    fi
    rm -rf "$out"
}

TOOLS=()
[ "$HAVE_IMGCACHE" = 1 ] && TOOLS+=(imgcache imgcache-deny)
[ "$HAVE_WGET2" = 1 ] && TOOLS+=(wget2)
TOOLS+=(curl16 curl100)

wait_idle
BUSY_BEFORE=$(cpu_busy)
# Untimed: bring every file into the page cache, for all tools alike.
say "Warming nginx's page cache…"
WARM_OUT="$SHM/warmup"
tool_cmd 1 curl16 "$WARM_OUT" "$(curl_config 1 "$WARM_OUT")"
"${CMD[@]}" >/dev/null 2>&1 || true
rm -rf "$WARM_OUT"
START=$(date +%s)
for s in 1 2 3; do
    has_setting "$s" || continue
    kinds=(tmpfs)
    on_disk_too "$s" && kinds+=(disk)
    for round in $(seq "$RUNS"); do
        say ""
        say "Setting $s, round $round/$RUNS…"
        wait_idle
        for tool in $(rotated "$round" "${TOOLS[@]}"); do
            for kind in "${kinds[@]}"; do
                run_one "$s" "$tool" "$kind" "$round"
            done
        done
    done
done
ELAPSED=$(( $(date +%s) - START ))

# MARK: - 7. Report

BUSY_AFTER=$(cpu_busy)
stop_relay

common_meta
meta images "$IMAGES"
meta site_mb "$site_mb"
meta runs "$RUNS"
meta settings "$SETTINGS"
meta concurrency "$CONCURRENCY" "$CURL_MANY"
for s in 1 2 3; do
    has_setting "$s" || continue
    for tool in "${TOOLS[@]}"; do
        tool_cmd "$s" "$tool" OUT CONFIG
        meta cmd "$s" "$tool" "$(shown_cmd)"
    done
done

python3 "$HERE/report.py" "$RESULTS" "$META"
exit_if_failures
