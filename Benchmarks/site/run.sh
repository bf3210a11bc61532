#!/usr/bin/env bash
# Site benchmark: `imgcache fetch SITE_DIR` vs `wget2 -p -k -i URLS` on a generated site of 300 pages,
# 20 stylesheets and 2,500 images, served by a local nginx over HTTPS + HTTP/2 behind a 25 ms-each-way
# latency relay, in one run. See Benchmarks/site/README.md.
#
# usage: bash Benchmarks/site/run.sh [--peers-only] [--runs N] [--latency-ms MS] [--disk-runs N] [--keep]
#                                    [--wait-idle S] [--tool-timeout S] [--relay c|python]
#   --peers-only      skip building and timing imgcache (wget2 only)
#   --runs N          timed runs per tool, outputs on tmpfs; best wall time reported (default 3)
#   --latency-ms MS   the relay's one-way delay (default 25: 50 ms round trip)
#   --disk-runs N     runs per tool repeated with the outputs on the disk (default 1; 0 for none)
#   --keep            keep the temp folders (site, outputs, logs) and print their paths
#   --wait-idle S     before each round, wait while other work keeps the CPUs busy, S seconds in all (default 60)
#   --tool-timeout S  each tool run is killed after S seconds (default 300)
#   --relay c|python  the relay implementation (default c: Benchmarks/fetch/latency_relay.c, built with gcc)
# IMGCACHE_BIN=/path/to/imgcache uses that binary instead of building one.
# Run from the repository root. Only ever talks to 127.0.0.1.
set -euo pipefail

# The options, setup, timing and cleanup it shares with Benchmarks/fetch/run.sh.
source "$(dirname "$0")/../common/bench.sh"
DISK_RUNS=1
own_option() { # option value → OPT_ARGS; fails on an option it does not know
    case "$1" in
        --disk-runs) DISK_RUNS=$2 ;;
        *) return 1 ;;
    esac
    OPT_ARGS=2
}
parse_options "$@"
[[ "$DISK_RUNS" =~ ^[0-9]+$ ]] || { echo "--disk-runs needs a whole number (0 for none)" >&2; exit 64; }
cd "$(dirname "$0")/../.."
HERE=Benchmarks/site
PAGES=300
STYLESHEETS=20
IMAGES=2500
THREADS=16              # wget2's --max-threads, as in the issue
SLOW_REPEAT=60          # a tool whose first run takes longer than this is not repeated
LABEL_WIDTH=18          # timed's label column: imgcache-tmpfs-1
COUNT_REPEATS=1         # the access log ends with the method and URI (nginx.conf.template)

# MARK: - 1. Install what is missing (Debian packages)

ensure_tools " (readiness and relay probes)"
ensure_wget2 "its rows and the wget2 ratio are skipped"
ensure_relay_compiler "using"
ensure_build_deps
if [ "$HAVE_WGET2" = 1 ] && ! grep -q '+http2' <<<"$(wget2 --version 2>/dev/null || true)"; then
    loud "this wget2 was built without HTTP/2 (+http2 missing from wget2 --version): it will use HTTP/1.1"
fi

# MARK: - 2. Temp folders, the test CA

make_temp_dirs sitebench "$DISK_RUNS"
make_ca site   # a throwaway CA and server certificate (see bench.sh)

# MARK: - 3. nginx on 127.0.0.1 (HTTPS + HTTP/2), the latency relay (Benchmarks/fetch/latency_relay.c) in front

serve_site_over_relay   # SITE_DIR gets the pages, stylesheets and fonts, ROOT everything (see bench.sh)

# MARK: - 4. The site (its absolute URLs name the relay's port, so it is made now)

BASE_URL="https://127.0.0.1:$RELAY_PORT/site/"
say "Generating the site…"
python3 "$HERE/make_site.py" "$ROOT" "$SITE_DIR" --origin "https://127.0.0.1:$RELAY_PORT" --prefix /site/ \
    --pages "$PAGES" --stylesheets "$STYLESHEETS" --images "$IMAGES" >&2
URLS="$ROOT/urls.txt"
site_mb=$(find "$ROOT/site/img" -type f -printf '%s\n' | awk '{ n += $1 } END { printf "%.1f", n / 1e6 }')
if [ -d "$SITE_DIR/img" ]; then say "bug: $SITE_DIR has img/"; exit 1; fi

# One small request (index.html, ~4 KB) by a fresh curl, best of 3 (probe): where the round trips go.
RELAY_SANITY+=("without the relay, TLS 1.3:      $(probe "https://127.0.0.1:$TLS_PORT/site/index.html")")
RELAY_SANITY+=("through the relay, TLS 1.3 + h2: $(probe "${BASE_URL}index.html")   expected: TCP connect ~0, TLS ~1 RTT = $RTT ms, total ~2 RTT = $(awk -v r="$RTT" 'BEGIN { print 2 * r }') ms")
for line in "${RELAY_SANITY[@]}"; do say "  $line"; done
: > "$ACCESS_LOG"

# MARK: - 5. imgcache

HAVE_IMGCACHE=0
SKIP_REASON="--peers-only"
if [ "$PEERS_ONLY" = 0 ]; then
    find_imgcache
    # ArgumentParser answers an unknown subcommand's --help with the top-level help, so look for
    # fetch's own usage line; the site mode (a folder as input) shows as SITE_DIR or --no-copy in it.
    if ! grep -q 'USAGE: imgcache fetch' <<<"$FETCH_HELP"; then
        SKIP_REASON="'imgcache fetch' does not exist in this build"
    elif ! grep -q -e 'SITE_DIR' -e '--no-copy' <<<"$FETCH_HELP"; then
        SKIP_REASON="this build's 'imgcache fetch' has no site mode (no SITE_DIR / --no-copy in fetch --help)"
    else
        HAVE_IMGCACHE=1
    fi
    [ "$HAVE_IMGCACHE" = 1 ] || loud "$SKIP_REASON: imgcache rows SKIPPED (wget2 only)"
fi

# MARK: - 6. Timing

# The commands, as arrays (CMD) so that no path is split. tool_cmd tool OUT
tool_cmd() {
    local tool=$1 out=$2
    case "$tool" in
        imgcache) CMD=("$BIN" fetch "$SITE_DIR" --base-url "$BASE_URL" --out "$out" --cacert "$CA" --quiet) ;;
        # -nH --cut-dirs=1: OUT/<path under /site/>, the same layout as imgcache's output.
        # --http2 is wget2's default where built in; said explicitly.
        wget2) CMD=(wget2 -p -k "--max-threads=$THREADS" --http2 "--ca-certificate=$CA" -q -nH --cut-dirs=1
                    -P "$out" -i "$URLS") ;;
    esac
}

check() { # OUT label → C_OK (1 or 0), C_MSG; the first 20 failures go to WORK/label.check
    if C_MSG=$(python3 "$HERE/check_site.py" "$ROOT" "$1" --list 20 2>"$WORK/$2.check"); then C_OK=1; else C_OK=0; fi
    C_MSG=$(tail -1 <<<"$C_MSG")
}
record() { # tool out round relay_ticks
    local IFS=$'\t'
    printf '%s\n' "$1	$2	$3	$T_RC	$T_S	$T_U	$T_SYS	$T_KB	$T_REQ	$T_CONNS	$T_PROTO	$T_TLS	$T_STATUS	$C_OK	${C_MSG//$'\t'/ }	${T_ERR//$'\t'/ }	$4	$T_REPEAT" >> "$RESULTS"
}

# run_one tool kind round: one timed run, checked, recorded.
run_one() {
    local tool=$1 kind=$2 round=$3 out r0 r1 label
    [ -z "${FAILED[$tool]:-}" ] || return 0
    [ -z "${SLOW[$tool:$kind]:-}" ] || return 0
    if [ "$kind" = tmpfs ]; then out="$SHM/out-$tool-$round"; else out="$WORK/out-$tool-$round"; fi
    rm -rf "$out"
    label="$tool-$kind-$round"
    tool_cmd "$tool" "$out"
    r0=$(relay_cpu)
    timed "$label" "${CMD[@]}"
    r1=$(relay_cpu)
    check "$out" "$label"
    record "$tool" "$kind" "$round" $(( r1 - r0 ))
    say "    check: $C_MSG"
    if [ "$T_RC" != 0 ]; then
        FAILED[$tool]=$T_ERR
        FAILURES+=("$tool ($kind): $T_ERR")
        say "    -> $tool is not run again"
    elif [ "$C_OK" = 0 ]; then
        say "    -> incomplete output; the first failures are in $WORK/$label.check"
        sed 's/^/       /' "$WORK/$label.check" | head -5 >&2
    fi
    not_again_if_slow "$tool:$kind"
    if [ "$KEEP" = 1 ] && [ "$round" = 1 ]; then return 0; fi   # --keep: keep each tool's first output
    rm -rf "$out"
}
# rounds kind count title where: COUNT rounds of every tool, each after waiting for idle CPUs.
rounds() {
    local kind=$1 count=$2 title=$3 where=$4 round tool
    for round in $(seq "$count"); do
        say ""
        say "$title $round/$count ($where)…"
        wait_idle
        for tool in $(rotated "$round" "${TOOLS[@]}"); do run_one "$tool" "$kind" "$round"; done
    done
}

TOOLS=()
[ "$HAVE_IMGCACHE" = 1 ] && TOOLS+=(imgcache)
[ "$HAVE_WGET2" = 1 ] && TOOLS+=(wget2)
[ ${#TOOLS[@]} -gt 0 ] || { say "nothing to time: neither imgcache nor wget2"; exit 1; }

wait_idle
BUSY_BEFORE=$(cpu_busy)
# Untimed: bring every file of the web root and of SITE_DIR into the page cache, for all tools alike.
find "$ROOT" "$SITE_DIR" -type f -exec cat {} + >/dev/null
START=$(date +%s)
rounds tmpfs "$RUNS" "Round" "outputs on tmpfs"
rounds disk "$DISK_RUNS" "Disk round" "outputs under $WORK"
ELAPSED=$(( $(date +%s) - START ))

# MARK: - 7. Report

BUSY_AFTER=$(cpu_busy)
stop_relay
stop_pid "$NGINX_PID"; NGINX_PID=

common_meta
meta pages "$PAGES"
meta stylesheets "$STYLESHEETS"
meta images "$IMAGES"
meta site_mb "$site_mb"
meta runs "$RUNS" "$DISK_RUNS"
meta threads "$THREADS"
for tool in imgcache wget2; do
    [ "$tool" = imgcache ] && [ -z "${BIN:-}" ] && BIN=imgcache
    tool_cmd "$tool" OUT
    cmdline=$(shown_cmd)
    cmdline=${cmdline//"$SITE_DIR"/SITE_DIR}
    cmdline=${cmdline//"$URLS"/urls.txt}
    cmdline=${cmdline//"127.0.0.1:$RELAY_PORT"/127.0.0.1:RELAY_PORT}
    meta cmd site "$tool" "$cmdline"
done

python3 "$HERE/report.py" "$RESULTS" "$META"
exit_if_failures
