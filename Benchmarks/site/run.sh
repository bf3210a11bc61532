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

PEERS_ONLY=0
RUNS=3
KEEP=0
IDLE_BUDGET=60
LATENCY_MS=25
DISK_RUNS=1
TOOL_TIMEOUT=300
RELAY_IMPL=c
while [ $# -gt 0 ]; do
    case "$1" in
        --peers-only) PEERS_ONLY=1 ;;
        --runs) RUNS=$2; shift ;;
        --latency-ms) LATENCY_MS=$2; shift ;;
        --disk-runs) DISK_RUNS=$2; shift ;;
        --keep) KEEP=1 ;;
        --wait-idle) IDLE_BUDGET=$2; shift ;;
        --tool-timeout) TOOL_TIMEOUT=$2; shift ;;
        --relay) RELAY_IMPL=$2; shift ;;
        -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown option: $1 (see --help)" >&2; exit 64 ;;
    esac
    shift
done
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "--runs needs a positive whole number" >&2; exit 64; }
[[ "$DISK_RUNS" =~ ^[0-9]+$ ]] || { echo "--disk-runs needs a whole number (0 for none)" >&2; exit 64; }
[[ "$LATENCY_MS" =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "--latency-ms needs a number of milliseconds" >&2; exit 64; }
[[ "$TOOL_TIMEOUT" =~ ^[1-9][0-9]*$ ]] || { echo "--tool-timeout needs a whole number of seconds" >&2; exit 64; }
[[ "$IDLE_BUDGET" =~ ^[0-9]+$ ]] || { echo "--wait-idle needs a whole number of seconds" >&2; exit 64; }
case "$RELAY_IMPL" in c|python) ;; *) echo "--relay is c or python" >&2; exit 64 ;; esac
cd "$(dirname "$0")/../.."
HERE=Benchmarks/site
FETCH=Benchmarks/fetch   # latency_relay.c / .py, and the image makers and reference parser the helpers import
PAGES=300
STYLESHEETS=20
IMAGES=2500
THREADS=16              # wget2's --max-threads, as in the issue
SLOW_REPEAT=60          # a tool whose first run takes longer than this is not repeated

say() { printf '%s\n' "$*" >&2; }
loud() { printf '\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n!!! %s\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\n' "$*" >&2; }

# MARK: - 1. Install what is missing (Debian packages) — as in Benchmarks/fetch/run.sh

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

ensure python3 python3 || { say "python3 is needed"; exit 1; }
ensure curl curl || { say "curl is needed (readiness and relay probes)"; exit 1; }
ensure nginx nginx-light nginx || { say "nginx is needed and neither nginx-light nor nginx is available"; exit 1; }
ensure openssl openssl || { say "openssl is needed (the test CA)"; exit 1; }
ensure timeout coreutils || { say "timeout (coreutils) is needed"; exit 1; }
[ -x /usr/bin/time ] || apt_install time
HAVE_WGET2=1
if ! ensure wget2 wget2; then
    HAVE_WGET2=0
    loud "wget2 is NOT available from apt (apt-cache policy wget2 has no candidate): its rows and the wget2 ratio are skipped"
fi
if [ "$RELAY_IMPL" = c ] && ! ensure gcc gcc; then
    loud "gcc is not available: using the Python relay (latency_relay.py) instead of latency_relay.c"
    RELAY_IMPL=python
fi
if [ "$PEERS_ONLY" = 0 ] && [ -z "${IMGCACHE_BIN:-}" ] && ! pkg-config --exists libxml-2.0 2>/dev/null; then
    apt_install libxml2-dev pkg-config
fi
if [ "$HAVE_WGET2" = 1 ] && ! grep -q '+http2' <<<"$(wget2 --version 2>/dev/null || true)"; then
    loud "this wget2 was built without HTTP/2 (+http2 missing from wget2 --version): it will use HTTP/1.1"
fi

# MARK: - 2. Temp folders, the test CA

WORK="$(mktemp -d "${TMPDIR:-/tmp}/imgcache-sitebench.XXXXXX")"   # the disk: site, logs, disk outputs
SHM="$(mktemp -d /dev/shm/imgcache-sitebench.XXXXXX)"              # tmpfs: headline outputs, access log
NGINX_PID=
RELAY_PID=
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
trap cleanup EXIT
trap 'exit 130' INT TERM
fs_type() { stat -f -c %T "$1"; }
DISK_FS=$(fs_type "$WORK")
SHM_FS=$(fs_type "$SHM")
[ "$SHM_FS" = tmpfs ] || loud "/dev/shm is $SHM_FS, not tmpfs: the 'tmpfs' outputs are not in memory"
if [ "$DISK_FS" = tmpfs ] && [ "$DISK_RUNS" -gt 0 ]; then
    loud "the temp folder $WORK is on tmpfs (TMPDIR?): the 'disk' rows are not on a disk"
fi

# A throwaway CA and a server certificate for 127.0.0.1 and localhost (EC P-256), valid for a week,
# made afresh each run (the same as Benchmarks/fetch/run.sh). Every client is given the CA explicitly.
TLS="$WORK/tls"
CA="$TLS/ca.pem"
make_ca() {
    mkdir -p "$TLS"
    (
        cd "$TLS"
        openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ca.key
        openssl req -x509 -new -key ca.key -sha256 -days 7 -subj "/CN=imgcache site benchmark test CA" \
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
make_ca

# MARK: - 3. nginx on 127.0.0.1 (HTTPS + HTTP/2)

ROOT="$WORK/www"            # nginx's web root; the site is ROOT/site/, with its images
SITE_DIR="$WORK/site"       # what imgcache is given: the same pages, stylesheets and fonts, no images
PREFIX="$WORK/nginx"
ACCESS_LOG="$SHM/access.log"
mkdir -p "$PREFIX" "$ROOT"
: > "$ACCESS_LOG"
NGINX_VERSION=$(nginx -v 2>&1 | sed 's|.*/||; s| .*||')
# `http2 on;` arrived in nginx 1.25.1, which deprecates `listen … http2`; Debian 12 has 1.22.
version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -1)" = "$2" ]; }
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
start_nginx() { # → 0 when nginx answers on $TLS_PORT
    local listen http2_on=""
    if version_ge "$NGINX_VERSION" 1.25.1; then
        listen="127.0.0.1:$TLS_PORT ssl"; http2_on="http2 on;"
    else
        listen="127.0.0.1:$TLS_PORT ssl http2"
    fi
    sed -e "s|@TLS_LISTEN@|$listen|g" -e "s|@HTTP2_ON@|$http2_on|g" \
        -e "s|@CERT@|$TLS/server.pem|g" -e "s|@KEY@|$TLS/server.key|g" -e "s|@ACCESS_LOG@|$ACCESS_LOG|g" \
        -e "s|@ROOT@|$ROOT|g" -e "s|@PREFIX@|$PREFIX|g" \
        -e "s|@USER@|$(id -un) $(id -gn)|g" "$HERE/nginx.conf.template" > "$PREFIX/nginx.conf"
    nginx -p "$PREFIX" -c "$PREFIX/nginx.conf" -e "$PREFIX/error.log" 2>>"$PREFIX/error.log" &
    NGINX_PID=$!
    for _ in $(seq 50); do
        if curl -sf -o /dev/null --max-time 1 --cacert "$CA" "https://127.0.0.1:$TLS_PORT/__status"; then
            return 0
        fi
        kill -0 "$NGINX_PID" 2>/dev/null || break
        sleep 0.1
    done
    stop_pid "$NGINX_PID"
    NGINX_PID=
    return 1
}
started=0
for _ in 1 2 3 4 5; do    # a port found free can be taken before nginx binds it: try others
    TLS_PORT=$(free_port)
    if start_nginx; then started=1; break; fi
done
if [ "$started" = 0 ]; then say "nginx did not start:"; tail -20 "$PREFIX/error.log" >&2; exit 1; fi
say "nginx $NGINX_VERSION serving $ROOT on 127.0.0.1:$TLS_PORT (HTTPS + HTTP/2), pid $NGINX_PID"

# MARK: - 4. The latency relay (Benchmarks/fetch/latency_relay.c)

relay_cpu() { # the relay's CPU time so far, in clock ticks (utime + stime)
    [ -n "$RELAY_PID" ] && awk '{ print $14 + $15 }' "/proc/$RELAY_PID/stat" 2>/dev/null || echo 0
}
start_relay() {
    local cmd
    if [ "$RELAY_IMPL" = c ]; then
        [ -x "$WORK/latency_relay" ] || gcc -O2 -Wall -o "$WORK/latency_relay" "$FETCH/latency_relay.c" >&2
        cmd=("$WORK/latency_relay" "$RELAY_PORT" "$TLS_PORT" "$LATENCY_MS")
    else
        cmd=(python3 "$FETCH/latency_relay.py" "$RELAY_PORT" "$TLS_PORT" --delay-ms "$LATENCY_MS")
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
started=0
for _ in 1 2 3 4 5; do
    RELAY_PORT=$(free_port)
    if start_relay; then started=1; break; fi
done
if [ "$started" = 0 ]; then say "the latency relay did not start:"; cat "$WORK/relay.err" >&2; exit 1; fi
RTT=$(awk -v d="$LATENCY_MS" 'BEGIN { printf "%g", 2 * d }')
say "latency relay ($RELAY_IMPL, pid $RELAY_PID) on 127.0.0.1:$RELAY_PORT -> :$TLS_PORT, ${LATENCY_MS} ms each way"

# MARK: - 5. The site (its absolute URLs name the relay's port, so it is made now)

BASE_URL="https://127.0.0.1:$RELAY_PORT/site/"
say "Generating the site…"
python3 "$HERE/make_site.py" "$ROOT" "$SITE_DIR" --origin "https://127.0.0.1:$RELAY_PORT" --prefix /site/ \
    --pages "$PAGES" --stylesheets "$STYLESHEETS" --images "$IMAGES" >&2
URLS="$ROOT/urls.txt"
site_mb=$(find "$ROOT/site/img" -type f -printf '%s\n' | awk '{ n += $1 } END { printf "%.1f", n / 1e6 }')
if [ -d "$SITE_DIR/img" ]; then say "bug: $SITE_DIR has img/"; exit 1; fi

# One small request (index.html, ~4 KB) by a fresh curl, best of 3: where the round trips go.
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
RELAY_SANITY=()
RELAY_SANITY+=("without the relay, TLS 1.3:      $(probe "https://127.0.0.1:$TLS_PORT/site/index.html")")
RELAY_SANITY+=("through the relay, TLS 1.3 + h2: $(probe "${BASE_URL}index.html")   expected: TCP connect ~0, TLS ~1 RTT = $RTT ms, total ~2 RTT = $(awk -v r="$RTT" 'BEGIN { print 2 * r }') ms")
for line in "${RELAY_SANITY[@]}"; do say "  $line"; done
: > "$ACCESS_LOG"

# MARK: - 6. imgcache

HAVE_IMGCACHE=0
SKIP_REASON="--peers-only"
if [ "$PEERS_ONLY" = 0 ]; then
    if [ -n "${IMGCACHE_BIN:-}" ]; then
        BIN=$IMGCACHE_BIN
        say "Using IMGCACHE_BIN=$BIN (not building)"
    else
        say "Building imgcache (release)…"
        swift build -c release --static-swift-stdlib --product imgcache >&2
        BIN="$(swift build -c release --static-swift-stdlib --show-bin-path)/imgcache"
    fi
    # Into a variable first: `… | grep -q` would let grep quit early, imgcache die of SIGPIPE, and
    # pipefail report the build as lacking the command. ArgumentParser answers an unknown
    # subcommand's --help with the top-level help, so look for fetch's own usage line; the site mode
    # (a folder as input) shows as SITE_DIR or --no-copy in it.
    fetch_help=$("$BIN" fetch --help 2>/dev/null || true)
    if ! grep -q 'USAGE: imgcache fetch' <<<"$fetch_help"; then
        SKIP_REASON="'imgcache fetch' does not exist in this build"
    elif ! grep -q -e 'SITE_DIR' -e '--no-copy' <<<"$fetch_help"; then
        SKIP_REASON="this build's 'imgcache fetch' has no site mode (no SITE_DIR / --no-copy in fetch --help)"
    else
        HAVE_IMGCACHE=1
    fi
    [ "$HAVE_IMGCACHE" = 1 ] || loud "$SKIP_REASON: imgcache rows SKIPPED (wget2 only)"
fi

# MARK: - 7. Timing

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

RESULTS="$WORK/results.tsv"
META="$WORK/meta.tsv"
: > "$RESULTS"
: > "$META"
meta() { local IFS=$'\t'; printf '%s\n' "$*" >> "$META"; }
FAILURES=()
declare -A FAILED SLOW
TICKS=$(getconf CLK_TCK)

# timed LABEL command... → T_RC, T_S (wall), T_U / T_SYS (CPU seconds), T_KB (peak RSS), and the
# access-log summary of the requests the run made: T_REQ, T_CONNS, T_PROTO, T_TLS, T_STATUS, and
# T_REPEAT: requests for a method + URL the run had already requested.
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
    stats=$(tail -c +$((off + 1)) "$ACCESS_LOG" | awk '
        { n++; conn[$3] = 1; proto[$2]++; status[$4]++; if ($5 != "-" && $5 != "") tls[$5]++; uri[$6 " " $7] = 1 }
        function join(a,   k, s) { s = ""; for (k in a) s = s (s == "" ? "" : ",") k ":" a[k]; return s == "" ? "-" : s }
        END { printf "%d\t%d\t%s\t%s\t%s\t%d\n", n, length(conn), join(proto), join(tls), join(status), n - length(uri) }')
    IFS=$'\t' read -r T_REQ T_CONNS T_PROTO T_TLS T_STATUS T_REPEAT <<<"$stats"
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
    say "  $(printf '%-18s' "$label") $T_S s wall, $(awk -v u="$T_U" -v s="$T_SYS" 'BEGIN { printf "%.2f", u + s }') s CPU, $(awk -v k="$T_KB" 'BEGIN { printf "%.1f", k / 1024 }') MB peak, $T_REQ request(s) ($T_REPEAT repeated) on $T_CONNS connection(s) ($T_PROTO)${T_ERR:+ - FAILED: $T_ERR}"
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
    if awk -v t="$T_S" -v l="$SLOW_REPEAT" 'BEGIN { exit !(t > l) }'; then
        SLOW[$tool:$kind]=1
        say "    -> over ${SLOW_REPEAT}s: not repeated"
    fi
    if [ "$KEEP" = 1 ] && [ "$round" = 1 ]; then return 0; fi   # --keep: keep each tool's first output
    rm -rf "$out"
}

# Share of the CPUs busy over one idle second: other work on the machine skews every figure.
cpu_busy() {
    local a b
    a=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat); sleep 1
    b=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat)
    echo "$a $b" | awk '{ busy = $3 - $1; idle = $4 - $2; printf "%.0f", 100 * busy / (busy + idle + 0.001) }'
}
wait_idle() { # waits (1 s steps, within IDLE_BUDGET seconds in all) until under 10% of the CPUs is busy
    local busy waited=0
    while busy=$(cpu_busy) && [ "$busy" -gt 10 ] && [ "$IDLE_BUDGET" -gt 0 ]; do
        IDLE_BUDGET=$(( IDLE_BUDGET - 1 )); waited=$(( waited + 1 ))
    done
    [ "$waited" = 0 ] || say "  (waited ${waited}s for other work on the machine; CPUs ${busy}% busy)"
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
for round in $(seq "$RUNS"); do
    say ""
    say "Round $round/$RUNS (outputs on tmpfs)…"
    wait_idle
    for tool in "${TOOLS[@]}"; do run_one "$tool" tmpfs "$round"; done
done
for round in $(seq "$DISK_RUNS"); do
    say ""
    say "Disk round $round/$DISK_RUNS (outputs under $WORK)…"
    wait_idle
    for tool in "${TOOLS[@]}"; do run_one "$tool" disk "$round"; done
done
ELAPSED=$(( $(date +%s) - START ))

# MARK: - 8. Report

BUSY_AFTER=$(cpu_busy)
RELAY_STATS=""
if [ -n "$RELAY_PID" ]; then
    stop_pid "$RELAY_PID"; RELAY_PID=
    RELAY_STATS=$(tail -1 "$WORK/relay.err" 2>/dev/null || true)
fi
stop_pid "$NGINX_PID"; NGINX_PID=

meta pages "$PAGES"
meta stylesheets "$STYLESHEETS"
meta images "$IMAGES"
meta site_mb "$site_mb"
meta nginx "$NGINX_VERSION"
meta cores "$(nproc)"
meta runs "$RUNS" "$DISK_RUNS"
meta busy "$BUSY_BEFORE" "$BUSY_AFTER"
meta latency_ms "$LATENCY_MS"
meta fs tmpfs "$SHM_FS" "$SHM"
meta fs disk "$DISK_FS" "$WORK"
meta elapsed "$ELAPSED"
meta ticks "$TICKS"
meta relay "$RELAY_IMPL"
meta relay_stats "$RELAY_STATS"
meta threads "$THREADS"
meta tool_timeout "$TOOL_TIMEOUT"
for line in "${RELAY_SANITY[@]}"; do meta sanity "$line"; done
if [ "$HAVE_IMGCACHE" = 1 ]; then meta imgcache available; else meta imgcache "$SKIP_REASON"; fi
if [ "$HAVE_WGET2" = 1 ]; then meta wget2 available; else meta wget2 "not available from apt"; fi
for tool in imgcache wget2; do
    [ "$tool" = imgcache ] && [ -z "${BIN:-}" ] && BIN=imgcache
    tool_cmd "$tool" OUT
    cmdline="${CMD[*]}"
    cmdline=${cmdline//"$CA"/CA.pem}
    cmdline=${cmdline//"$SITE_DIR"/SITE_DIR}
    cmdline=${cmdline//"$URLS"/urls.txt}
    cmdline=${cmdline//"$BIN"/imgcache}
    cmdline=${cmdline//"127.0.0.1:$RELAY_PORT"/127.0.0.1:RELAY_PORT}
    meta cmd site "$tool" "$cmdline"
done

python3 "$HERE/report.py" "$RESULTS" "$META"

if [ ${#FAILURES[@]} -gt 0 ]; then
    printf '\nPROBLEMS:\n'
    printf '  %s\n' "${FAILURES[@]}"
    exit 1
fi
