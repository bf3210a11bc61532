# The pieces Benchmarks/fetch/run.sh and Benchmarks/site/run.sh share: their common options, installing
# what is missing, the temp folders and the cleanup on exit, the throwaway test CA, nginx, the latency
# relay, imgcache, timing one tool run, waiting for idle CPUs, and the report's common records.
# Sourced, not run: `source "$(dirname "$0")/../common/bench.sh"` before the options are parsed.
#
# What the sourcing script provides:
#   HERE               its own folder, from the repository root (nginx.conf.template is read from it)
#   own_option         its own options: own_option OPTION [VALUE] sets OPT_ARGS to the words it took,
#                      or fails on an option it does not know
#   pick_ports         sets the ports nginx is to listen on (TLS_PORT, and any other its template
#                      names); fails when they clash, and other ports are tried
#   nginx_ready        succeeds when nginx answers on those ports
#   SLOW_REPEAT        seconds: a tool whose run takes longer is not repeated (not_again_if_slow)
#   LABEL_WIDTH        the label column of timed's progress lines (default 18)
#   COUNT_REPEATS      1 when its access log ends with the method and URI: timed's progress lines then
#                      say how many requests asked again for what the run had already asked for
# Every function runs from the repository root (the script cds there once the options are parsed).

# MARK: - Options

PEERS_ONLY=0
RUNS=3
KEEP=0
IDLE_BUDGET=60
LATENCY_MS=25
TOOL_TIMEOUT=300
RELAY_IMPL=c

print_usage() { # → the script's opening comment, without its '#'s
    awk 'NR > 1 { if (!/^#/) exit; sub(/^# ?/, ""); print }' "$0"
}
parse_options() { # the script's arguments → the variables above, and the script's own (own_option)
    while [ $# -gt 0 ]; do
        OPT_ARGS=1
        case "$1" in
            --peers-only) PEERS_ONLY=1 ;;
            --runs) RUNS=$2; OPT_ARGS=2 ;;
            --latency-ms) LATENCY_MS=$2; OPT_ARGS=2 ;;
            --keep) KEEP=1 ;;
            --wait-idle) IDLE_BUDGET=$2; OPT_ARGS=2 ;;
            --tool-timeout) TOOL_TIMEOUT=$2; OPT_ARGS=2 ;;
            --relay) RELAY_IMPL=$2; OPT_ARGS=2 ;;
            -h|--help) print_usage; exit 0 ;;
            *) own_option "$@" || { echo "unknown option: $1 (see --help)" >&2; exit 64; } ;;
        esac
        shift "$OPT_ARGS"
    done
    [[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "--runs needs a positive whole number" >&2; exit 64; }
    [[ "$LATENCY_MS" =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "--latency-ms needs a number of milliseconds" >&2; exit 64; }
    [[ "$TOOL_TIMEOUT" =~ ^[1-9][0-9]*$ ]] || { echo "--tool-timeout needs a whole number of seconds" >&2; exit 64; }
    [[ "$IDLE_BUDGET" =~ ^[0-9]+$ ]] || { echo "--wait-idle needs a whole number of seconds" >&2; exit 64; }
    case "$RELAY_IMPL" in c|python) ;; *) echo "--relay is c or python" >&2; exit 64 ;; esac
}

say() { printf '%s\n' "$*" >&2; }
loud() { printf '\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n!!! %s\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\n' "$*" >&2; }

# MARK: - Install what is missing (Debian packages)

APT_UPDATED=0
apt_candidate() { # package → succeeds when apt can install it
    # Not `apt-cache … | grep -q`: grep quitting early kills apt-cache with SIGPIPE, and pipefail
    # then reports the package missing.
    local policy
    policy=$(apt-cache policy "$1" 2>/dev/null)
    grep -q 'Candidate: [^(]' <<<"$policy"
}
apt_update() {
    [ "$APT_UPDATED" = 1 ] && return 0
    say "apt-get update…"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    APT_UPDATED=1
}
apt_install() { # packages...
    [ $# -gt 0 ] || return 0
    apt_update
    say "Installing $*…"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
ensure() { # command, package[, fallback package] → installs the first package apt has
    local cmd=$1; shift
    command -v "$cmd" >/dev/null 2>&1 && return 0
    apt_update
    local pkg
    for pkg in "$@"; do
        if apt_candidate "$pkg"; then apt_install "$pkg"; return 0; fi
    done
    return 1
}
# Debian's nginx lives in /usr/sbin, which a non-login root shell may not have on PATH.
export PATH="$PATH:/usr/sbin:/sbin"

ensure_tools() { # what curl is for ("" or " (…)") → python3, curl, nginx, openssl, timeout, /usr/bin/time, or exit
    ensure python3 python3 || { say "python3 is needed"; exit 1; }
    ensure curl curl || { say "curl is needed$1"; exit 1; }
    ensure nginx nginx-light nginx || { say "nginx is needed and neither nginx-light nor nginx is available"; exit 1; }
    ensure openssl openssl || { say "openssl is needed (the test CA)"; exit 1; }
    ensure timeout coreutils || { say "timeout (coreutils) is needed"; exit 1; }
    [ -x /usr/bin/time ] || apt_install time
}
ensure_wget2() { # what is skipped without it → HAVE_WGET2 (1 or 0)
    HAVE_WGET2=1
    if ! ensure wget2 wget2; then
        HAVE_WGET2=0
        loud "wget2 is NOT available from apt (apt-cache policy wget2 has no candidate): $1"
    fi
}
ensure_relay_compiler() { # what the fallback is said as → RELAY_IMPL=python when gcc is missing
    if [ "$RELAY_IMPL" = c ] && ! ensure gcc gcc; then
        loud "gcc is not available: $1 the Python relay (latency_relay.py) instead of latency_relay.c"
        RELAY_IMPL=python
    fi
}
ensure_build_deps() { # → what building imgcache needs, unless it is not built
    if [ "$PEERS_ONLY" = 0 ] && [ -z "${IMGCACHE_BIN:-}" ] && ! pkg-config --exists libxml-2.0 libcurl 2>/dev/null; then
        apt_install libxml2-dev libcurl4-openssl-dev pkg-config
    fi
}

# MARK: - Temp folders, cleanup, the test CA

NGINX_PID=
RELAY_PID=
RELAY_PORT=
RELAY_SANITY=()
TOOL_PID=
stop_pid() { # pid → TERM, wait up to 5 s, then KILL
    local pid=$1
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}
cleanup() {
    if [ -n "$TOOL_PID" ] && kill -0 "$TOOL_PID" 2>/dev/null; then
        kill -TERM -- "-$TOOL_PID" 2>/dev/null || kill -TERM "$TOOL_PID" 2>/dev/null || true
        sleep 0.5
        kill -KILL -- "-$TOOL_PID" 2>/dev/null || true
        wait "$TOOL_PID" 2>/dev/null || true
    fi
    stop_pid "$RELAY_PID"
    stop_pid "$NGINX_PID"
    if [ "$KEEP" = 1 ]; then say "kept $WORK and $SHM"; else rm -rf "$WORK" "$SHM"; fi
}
fs_type() { stat -f -c %T "$1"; }
make_temp_dirs() { # name, what asks for disk outputs ("" or 0: none) → WORK, SHM, DISK_FS, SHM_FS; RESULTS, META (empty)
    WORK="$(mktemp -d "${TMPDIR:-/tmp}/imgcache-$1.XXXXXX")"   # the disk: site, logs, disk outputs
    SHM="$(mktemp -d "/dev/shm/imgcache-$1.XXXXXX")"            # tmpfs: headline outputs, access log
    trap cleanup EXIT
    trap 'exit 130' INT TERM
    DISK_FS=$(fs_type "$WORK")
    SHM_FS=$(fs_type "$SHM")
    [ "$SHM_FS" = tmpfs ] || loud "/dev/shm is $SHM_FS, not tmpfs: the 'tmpfs' outputs are not in memory"
    if [ "$DISK_FS" = tmpfs ] && [ -n "$2" ] && [ "$2" != 0 ]; then
        loud "the temp folder $WORK is on tmpfs (TMPDIR?): the 'disk' rows are not on a disk"
    fi
    RESULTS="$WORK/results.tsv"
    META="$WORK/meta.tsv"
    : > "$RESULTS"
    : > "$META"
}

# A throwaway CA and a server certificate for 127.0.0.1 and localhost (EC P-256), valid for a week,
# made afresh each run. Every client is given the CA explicitly; nothing is installed system-wide.
make_ca() { # benchmark name (in the CA's name) → TLS (the folder), CA (its certificate)
    TLS="$WORK/tls"
    CA="$TLS/ca.pem"
    mkdir -p "$TLS"
    (
        cd "$TLS"
        openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ca.key
        openssl req -x509 -new -key ca.key -sha256 -days 7 -subj "/CN=imgcache $1 benchmark test CA" \
            -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" -out ca.pem
        openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out server.key
        openssl req -new -key server.key -subj "/CN=127.0.0.1" -out server.csr
        printf '%s\n' "basicConstraints=critical,CA:FALSE" "keyUsage=critical,digitalSignature" \
            "extendedKeyUsage=serverAuth" "subjectAltName=IP:127.0.0.1,DNS:localhost" > server.ext
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 7 -sha256 \
            -extfile server.ext -out server.pem
        openssl verify -CAfile ca.pem server.pem
    ) >"$WORK/openssl.log" 2>&1 || { say "making the test CA failed:"; cat "$WORK/openssl.log" >&2; exit 1; }
}

# MARK: - nginx on 127.0.0.1

# `http2 on;` arrived in nginx 1.25.1, which deprecates `listen … http2`; Debian 12 has 1.22.
version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -1)" = "$2" ]; }
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
start_nginx() { # → 0 when nginx answers on the ports pick_ports chose (nginx_ready)
    local listen http2_on=""
    if version_ge "$NGINX_VERSION" 1.25.1; then
        listen="127.0.0.1:$TLS_PORT ssl"; http2_on="http2 on;"
    else
        listen="127.0.0.1:$TLS_PORT ssl http2"
    fi
    sed -e "s|@PORT@|${PORT:-}|g" -e "s|@TLS_LISTEN@|$listen|g" -e "s|@HTTP2_ON@|$http2_on|g" \
        -e "s|@CERT@|$TLS/server.pem|g" -e "s|@KEY@|$TLS/server.key|g" -e "s|@ACCESS_LOG@|$ACCESS_LOG|g" \
        -e "s|@ROOT@|$ROOT|g" -e "s|@PREFIX@|$PREFIX|g" \
        -e "s|@USER@|$(id -un) $(id -gn)|g" "$HERE/nginx.conf.template" > "$PREFIX/nginx.conf"
    nginx -p "$PREFIX" -c "$PREFIX/nginx.conf" -e "$PREFIX/error.log" 2>>"$PREFIX/error.log" &
    NGINX_PID=$!
    for _ in $(seq 50); do
        nginx_ready && return 0
        kill -0 "$NGINX_PID" 2>/dev/null || break
        sleep 0.1
    done
    stop_pid "$NGINX_PID"
    NGINX_PID=
    return 1
}
start_nginx_on_free_ports() { # → nginx serving ROOT from PREFIX (WORK/nginx), logging to ACCESS_LOG (on tmpfs); NGINX_VERSION; or exit
    PREFIX="$WORK/nginx"
    ACCESS_LOG="$SHM/access.log"
    mkdir -p "$PREFIX"
    : > "$ACCESS_LOG"
    NGINX_VERSION=$(nginx -v 2>&1 | sed 's|.*/||; s| .*||')
    local started=0
    for _ in 1 2 3 4 5; do    # a port found free can be taken before nginx binds it: try others
        pick_ports || continue
        if start_nginx; then started=1; break; fi
    done
    if [ "$started" = 0 ]; then say "nginx did not start:"; tail -20 "$PREFIX/error.log" >&2; exit 1; fi
}

# MARK: - The latency relay (Benchmarks/fetch/latency_relay.c, or .py)

RELAY_SRC=Benchmarks/fetch
relay_cpu() { # the relay's CPU time so far, in clock ticks (utime + stime)
    [ -n "$RELAY_PID" ] && awk '{ print $14 + $15 }' "/proc/$RELAY_PID/stat" 2>/dev/null || echo 0
}
start_relay() { # → 0 when the relay on RELAY_PORT, in front of TLS_PORT, is ready
    local cmd
    if [ "$RELAY_IMPL" = c ]; then
        [ -x "$WORK/latency_relay" ] || gcc -O2 -Wall -o "$WORK/latency_relay" "$RELAY_SRC/latency_relay.c" >&2
        cmd=("$WORK/latency_relay" "$RELAY_PORT" "$TLS_PORT" "$LATENCY_MS")
    else
        cmd=(python3 "$RELAY_SRC/latency_relay.py" "$RELAY_PORT" "$TLS_PORT" --delay-ms "$LATENCY_MS")
    fi
    "${cmd[@]}" >"$WORK/relay.out" 2>"$WORK/relay.err" &
    RELAY_PID=$!
    for _ in $(seq 50); do
        grep -q '^ready' "$WORK/relay.out" 2>/dev/null && return 0
        kill -0 "$RELAY_PID" 2>/dev/null || break
        sleep 0.1
    done
    stop_pid "$RELAY_PID"
    RELAY_PID=
    return 1
}
serve_site_over_relay() { # → nginx serving ROOT (WORK/www) over HTTPS + HTTP/2 on TLS_PORT, the relay in front of it; SITE_DIR (WORK/site)
    ROOT="$WORK/www"            # nginx's web root; the site is ROOT/site/, with its images
    SITE_DIR="$WORK/site"       # what imgcache is given: the site without its images
    mkdir -p "$ROOT"
    pick_ports() { TLS_PORT=$(free_port); }
    nginx_ready() { curl -sf -o /dev/null --max-time 1 --cacert "$CA" "https://127.0.0.1:$TLS_PORT/__status"; }
    start_nginx_on_free_ports
    say "nginx $NGINX_VERSION serving $ROOT on 127.0.0.1:$TLS_PORT (HTTPS + HTTP/2), pid $NGINX_PID"
    start_relay_on_free_port
}

start_relay_on_free_port() { # → the relay started on a free port: RELAY_PORT, RELAY_PID, RTT (ms); or exit
    local started=0
    for _ in 1 2 3 4 5; do
        RELAY_PORT=$(free_port)
        if start_relay; then started=1; break; fi
    done
    if [ "$started" = 0 ]; then say "the latency relay did not start:"; cat "$WORK/relay.err" >&2; exit 1; fi
    RTT=$(awk -v d="$LATENCY_MS" 'BEGIN { printf "%g", 2 * d }')
    say "latency relay ($RELAY_IMPL, pid $RELAY_PID) on 127.0.0.1:$RELAY_PORT -> :$TLS_PORT, ${LATENCY_MS} ms each way"
}
stop_relay() { # → RELAY_STATS: the relay's own summary line, if it ran
    RELAY_STATS=""
    if [ -n "$RELAY_PID" ]; then
        stop_pid "$RELAY_PID"; RELAY_PID=
        RELAY_STATS=$(tail -1 "$WORK/relay.err" 2>/dev/null || true)
    fi
}
# One small request by a fresh curl, best of 3: where the round trips go.
probe() { # url, curl options... → "connect appconnect starttransfer total" in ms, and the protocol
    local best="" line
    for _ in 1 2 3; do
        line=$(curl -s -o /dev/null --max-time 10 --cacert "$CA" "${@:2}" \
            -w '%{time_connect} %{time_appconnect} %{time_starttransfer} %{time_total} %{http_version}' "$1") || continue
        best=$(awk -v a="$line" -v b="$best" 'BEGIN { split(a, x, " "); split(b, y, " ");
            print (b == "" || x[4] + 0 < y[4] + 0) ? a : b }')
    done
    awk -v l="$best" 'BEGIN { split(l, x, " "); printf "TCP connect %.1f ms, TLS done %.1f ms, first byte %.1f ms, total %.1f ms (HTTP/%s)",
        x[1] * 1000, x[2] * 1000, x[3] * 1000, x[4] * 1000, x[5] }'
}

# MARK: - imgcache

find_imgcache() { # → BIN: IMGCACHE_BIN, or a release build; FETCH_HELP: its `fetch --help`
    if [ -n "${IMGCACHE_BIN:-}" ]; then
        BIN=$IMGCACHE_BIN
        say "Using IMGCACHE_BIN=$BIN (not building)"
    else
        say "Building imgcache (release)…"
        swift build -c release --static-swift-stdlib --product imgcache >&2
        BIN="$(swift build -c release --static-swift-stdlib --show-bin-path)/imgcache"
    fi
    # A binary just written (built or copied) sits in the page cache in large folios, and the
    # kernel maps a whole folio around each page of code a run touches: one binary peaked at
    # 44.6 MB in a 2,000-image fetch just after a copy and at 41.3 MB once read back from the
    # disk. Users run a binary installed earlier, so its pages are dropped from the cache first
    # (the first run reads them back).
    python3 -c 'import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' \
        "$BIN" 2>/dev/null || true
    # Into a variable first: `… | grep -q` would let grep quit early, imgcache die of SIGPIPE, and
    # pipefail report the build as lacking the command.
    FETCH_HELP=$("$BIN" fetch --help 2>/dev/null || true)
}

# MARK: - Timing

meta() { local IFS=$'\t'; printf '%s\n' "$*" >> "$META"; }
FAILURES=()
declare -A FAILED SLOW
TICKS=$(getconf CLK_TCK)
LABEL_WIDTH=18
COUNT_REPEATS=0

# timed LABEL command... → T_RC, T_S (wall), T_U / T_SYS (CPU seconds), T_KB (peak RSS), and the
# access-log summary of the requests the run made: T_REQ, T_CONNS, T_PROTO, T_TLS, T_STATUS, and
# T_REPEAT: requests for a method + URL the run had already requested (with COUNT_REPEATS=1);
# T_PHASES, where the log ends with nginx's $msec: milliseconds from the start to the first response,
# from it to the second (a page fetcher's page to its first image), from the second to the last,
# and from the last to the exit, as a/b/c/d ("-" with fewer than two requests).
timed() {
    local label=$1; shift
    local off t0 t1 stats
    # Flush the previous run's writes now, so that their writeback does not land in this run's time.
    sync
    off=$(stat -c %s "$ACCESS_LOG")
    rm -f "$WORK/time.txt"
    t0=$(date +%s%N)
    # In the background and waited for, so that a signal to this script is acted on at once (the
    # trap then stops the tool: timeout made it a process group of its own).
    timeout -k 5 "$TOOL_TIMEOUT" /usr/bin/time -f '%e %U %S %M' -o "$WORK/time.txt" "$@" \
        </dev/null >"$WORK/$label.out" 2>"$WORK/$label.err" &
    TOOL_PID=$!
    set +e
    wait "$TOOL_PID"
    T_RC=$?
    set -e
    TOOL_PID=
    t1=$(date +%s%N)
    T_S=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
    read -r _ T_U T_SYS T_KB < <(tail -1 "$WORK/time.txt" 2>/dev/null | awk 'NF == 4 { print; exit } END { if (NR == 0 || NF != 4) print "- - - -" }') || true
    stats=$(tail -c +$((off + 1)) "$ACCESS_LOG" | awk -v uris="$COUNT_REPEATS" -v t0="$t0" -v t1="$t1" '
        { n++; conn[$3] = 1; proto[$2]++; status[$4]++; if ($5 != "-" && $5 != "") tls[$5]++; if (uris == 1) uri[$6 " " $7] = 1
          if (NF >= 8) { ms = $8 * 1000; if (n == 1 || ms < first) { second = first; first = ms } else if (n == 2 || ms < second) second = ms
                         if (n == 1 || ms > last) last = ms } }
        function join(a,   k, s) { s = ""; for (k in a) s = s (s == "" ? "" : ",") k ":" a[k]; return s == "" ? "-" : s }
        END { phases = "-"
              if (n >= 2 && first > 0) phases = sprintf("%.0f/%.0f/%.0f/%.0f", first - t0 / 1e6, second - first, last - second, t1 / 1e6 - last)
              printf "%d\t%d\t%s\t%s\t%s\t%s\t%s\n", n, length(conn), join(proto), join(tls), join(status), uris == 1 ? n - length(uri) : "-", phases }')
    IFS=$'\t' read -r T_REQ T_CONNS T_PROTO T_TLS T_STATUS T_REPEAT T_PHASES <<<"$stats"
    T_ERR=""
    if [ "$T_RC" != 0 ]; then
        if [ "$T_RC" = 124 ] || [ "$T_RC" = 137 ]; then
            T_ERR="killed after the ${TOOL_TIMEOUT}s time limit"
        else
            # The tool's own message: its first line that says error, else its first line.
            local msg
            msg=$(awk 'NF && !/^Command (exited|terminated)/ { if (first == "") first = $0
                    if (tolower($0) ~ /error/) { print; found = 1; exit } }
                END { if (!found) print first }' "$WORK/$label.err")
            T_ERR="exit $T_RC: $(printf '%s' "$msg" | tr '\t\n' '  ' | cut -c1-240)"
        fi
    fi
    local repeats=""
    [ "$COUNT_REPEATS" != 1 ] || repeats=" ($T_REPEAT repeated)"
    say "  $(printf "%-${LABEL_WIDTH}s" "$label") $T_S s wall, $(awk -v u="$T_U" -v s="$T_SYS" 'BEGIN { printf "%.2f", u + s }') s CPU, $(awk -v k="$T_KB" 'BEGIN { printf "%.1f", k / 1024 }') MB peak, $T_REQ request(s)$repeats on $T_CONNS connection(s) ($T_PROTO)${T_ERR:+ - FAILED: $T_ERR}"
}
not_again_if_slow() { # key → SLOW[key] set when the run just timed took over SLOW_REPEAT seconds
    if awk -v t="$T_S" -v l="$SLOW_REPEAT" 'BEGIN { exit !(t > l) }'; then
        SLOW[$1]=1
        say "    -> over ${SLOW_REPEAT}s: not repeated"
    fi
}

# Share of the CPUs busy over one idle second: other work on the machine skews every figure.
cpu_busy() {
    local a b
    a=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat); sleep 1
    b=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat)
    echo "$a $b" | awk '{ busy = $3 - $1; idle = $4 - $2; printf "%.0f", 100 * busy / (busy + idle + 0.001) }'
}
# rotated ROUND ITEM...: the items, starting from the ROUND-th (1-based, wrapping round): each tool
# starts a round in turn. The first run after wait_idle's idle second is the slow one (a fetch of
# 2,000 images on loopback took 2-5 ms more wall time and 4% more CPU than the same command right
# after it), so a fixed order would charge that to the same tool in every round.
rotated() {
    local round=$1; shift
    local count=$# index
    for (( index = 0; index < count; index++ )); do
        local at=$(( (round - 1 + index) % count + 1 ))
        printf '%s\n' "${!at}"
    done
}
wait_idle() { # waits (1 s steps, within IDLE_BUDGET seconds in all) until under 10% of the CPUs is busy
    local busy waited=0
    while busy=$(cpu_busy) && [ "$busy" -gt 10 ] && [ "$IDLE_BUDGET" -gt 0 ]; do
        IDLE_BUDGET=$(( IDLE_BUDGET - 1 )); waited=$(( waited + 1 ))
    done
    [ "$waited" = 0 ] || say "  (waited ${waited}s for other work on the machine; CPUs ${busy}% busy)"
}

# MARK: - Report

common_meta() { # → the records both reports read the same way (the script adds its own)
    local line
    meta nginx "$NGINX_VERSION"
    meta cores "$(nproc)"
    meta busy "$BUSY_BEFORE" "$BUSY_AFTER"
    meta latency_ms "$LATENCY_MS"
    meta fs tmpfs "$SHM_FS" "$SHM"
    meta fs disk "$DISK_FS" "$WORK"
    meta elapsed "$ELAPSED"
    meta ticks "$TICKS"
    meta relay "$RELAY_IMPL"
    meta relay_stats "$RELAY_STATS"
    meta tool_timeout "$TOOL_TIMEOUT"
    for line in "${RELAY_SANITY[@]}"; do meta sanity "$line"; done
    if [ "$HAVE_IMGCACHE" = 1 ]; then meta imgcache available; else meta imgcache "$SKIP_REASON"; fi
    if [ "$HAVE_WGET2" = 1 ]; then meta wget2 available; else meta wget2 "not available from apt"; fi
}
shown_cmd() { # → CMD as one line, with CA.pem for the test CA's path and imgcache for BIN
    local line="${CMD[*]}"
    line=${line//"$CA"/CA.pem}
    [ -z "${BIN:-}" ] || line=${line//"$BIN"/imgcache}
    printf '%s' "$line"
}
exit_if_failures() { # → PROBLEMS and exit 1 when a run failed
    if [ ${#FAILURES[@]} -gt 0 ]; then
        printf '\nPROBLEMS:\n'
        printf '  %s\n' "${FAILURES[@]}"
        exit 1
    fi
}
