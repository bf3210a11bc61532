#!/usr/bin/env bash
# Download benchmark: `imgcache fetch` vs wget2 and curl on the same generated site, served by a local
# nginx on 127.0.0.1, in one run. See Benchmarks/fetch/README.md.
#
# usage: bash Benchmarks/fetch/run.sh [--peers-only] [--runs N] [--keep] [--wait-idle S]
#   --peers-only  skip building and timing imgcache (wget2 and curl only)
#   --runs N      timed runs per tool, best one reported (default 3)
#   --keep        keep the temp folder (site, outputs, nginx log) and print its path
#   --wait-idle S before each round, wait while other work keeps the CPUs busy, S seconds in all (default 60)
# IMGCACHE_BIN=/path/to/imgcache uses that binary instead of building one.
# Run from the repository root. Only ever talks to 127.0.0.1.
set -euo pipefail

PEERS_ONLY=0
RUNS=3
KEEP=0
IDLE_BUDGET=60
while [ $# -gt 0 ]; do
    case "$1" in
        --peers-only) PEERS_ONLY=1 ;;
        --runs) RUNS=$2; shift ;;
        --keep) KEEP=1 ;;
        --wait-idle) IDLE_BUDGET=$2; shift ;;
        -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown option: $1 (see --help)" >&2; exit 64 ;;
    esac
    shift
done
cd "$(dirname "$0")/../.."
HERE=Benchmarks/fetch
IMAGES=2000
CONCURRENCY=16

say() { printf '%s\n' "$*" >&2; }
loud() { printf '\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n!!! %s\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\n' "$*" >&2; }

# MARK: - 1. Install what is missing (Debian packages)

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
ensure curl curl || { say "curl is needed"; exit 1; }
ensure nginx nginx-light nginx || { say "nginx is needed and neither nginx-light nor nginx is available"; exit 1; }
[ -x /usr/bin/time ] || apt_install time
HAVE_WGET2=1
if ! ensure wget2 wget2; then
    HAVE_WGET2=0
    loud "wget2 is NOT available from apt (apt-cache policy wget2 has no candidate): its row and the wget2 ratio are skipped"
fi
if [ "$PEERS_ONLY" = 0 ] && ! pkg-config --exists libxml-2.0 2>/dev/null; then
    apt_install libxml2-dev pkg-config
fi

# MARK: - 2. The site

WORK="$(mktemp -d "${TMPDIR:-/tmp}/imgcache-fetchbench.XXXXXX")"
NGINX_PID=
cleanup() {
    if [ -n "$NGINX_PID" ] && kill -0 "$NGINX_PID" 2>/dev/null; then
        kill -TERM "$NGINX_PID" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$NGINX_PID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$NGINX_PID" 2>/dev/null || true
        wait "$NGINX_PID" 2>/dev/null || true
    fi
    if [ "$KEEP" = 1 ]; then say "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ROOT="$WORK/www"
say "Generating the site…"
python3 "$HERE/make_site.py" "$ROOT" --images "$IMAGES" >&2
site_mb=$(find "$ROOT/assets" -type f -printf '%s\n' | awk '{ n += $1 } END { printf "%.1f", n / 1e6 }')

# MARK: - 3. nginx on 127.0.0.1

PREFIX="$WORK/nginx"
mkdir -p "$PREFIX"
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
start_nginx() { # → 0 when nginx answers on $PORT
    sed -e "s|@PORT@|$PORT|g" -e "s|@ROOT@|$ROOT|g" -e "s|@PREFIX@|$PREFIX|g" \
        -e "s|@USER@|$(id -un) $(id -gn)|g" "$HERE/nginx.conf.template" > "$PREFIX/nginx.conf"
    nginx -p "$PREFIX" -c "$PREFIX/nginx.conf" -e "$PREFIX/error.log" 2>>"$PREFIX/error.log" &
    NGINX_PID=$!
    for _ in $(seq 50); do
        curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/__status" && return 0
        kill -0 "$NGINX_PID" 2>/dev/null || break
        sleep 0.1
    done
    kill -TERM "$NGINX_PID" 2>/dev/null || true
    wait "$NGINX_PID" 2>/dev/null || true
    NGINX_PID=
    return 1
}
started=0
for _ in 1 2 3 4 5; do    # a port found free can be taken before nginx binds it: try another
    PORT=$(free_port)
    if start_nginx; then started=1; break; fi
done
if [ "$started" = 0 ]; then say "nginx did not start:"; tail -20 "$PREFIX/error.log" >&2; exit 1; fi
PAGE_URL="http://127.0.0.1:$PORT/index.html"
say "nginx $(nginx -v 2>&1 | sed 's|.*/||') serving $ROOT on 127.0.0.1:$PORT (pid $NGINX_PID)"

requests() { # nginx's request counter; each call is itself one request
    curl -s --max-time 5 "http://127.0.0.1:$PORT/__status" | awk 'NR == 3 { print $3 }'
}

# curl's -K config: one url/output pair per image.
curl_config() { # OUT_DIR → config path
    local out=$1 cfg="$WORK/curl-$(basename "$1").cfg"
    awk -v base="http://127.0.0.1:$PORT/" -v out="$out/" \
        '{ printf "url = \"%s%s\"\noutput = \"%s%s\"\n", base, $0, out, $0 }' "$ROOT/images.txt" > "$cfg"
    echo "$cfg"
}

# MARK: - 4. imgcache

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
    # ArgumentParser answers an unknown subcommand's --help with the top-level help and status 0,
    # so look for fetch's own usage line.
    if "$BIN" fetch --help 2>/dev/null | grep -q 'USAGE: imgcache fetch'; then
        HAVE_IMGCACHE=1
    else
        SKIP_REASON="'imgcache fetch' does not exist yet in this build"
        loud "$SKIP_REASON: imgcache rows SKIPPED (peers only)"
    fi
fi

# MARK: - 5. Timing

FAILURES=()
# timed OUT_LABEL command... → sets T_S (wall seconds), T_KB (peak RSS), T_REQ (requests it made), T_RC
timed() {
    local label=$1; shift
    local before after t0 t1
    # Flush the previous run's writes now, so that their writeback does not land in this run's time.
    sync
    before=$(requests)
    t0=$(date +%s%N)
    set +e
    /usr/bin/time -f '%M' -o "$WORK/rss" "$@" >"$WORK/$label.out" 2>"$WORK/$label.err"
    T_RC=$?
    set -e
    t1=$(date +%s%N)
    after=$(requests)
    T_S=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
    T_KB=$(tail -1 "$WORK/rss")
    T_REQ=$(( after - before - 1 ))
    say "  $(printf '%-22s' "$label") $T_S s, $(awk -v k="$T_KB" 'BEGIN { printf "%.1f", k / 1024 }') MB peak, $T_REQ request(s)"
    if [ "$T_RC" != 0 ]; then
        FAILURES+=("$label exited $T_RC")
        say "$label exited with status $T_RC:"; tail -5 "$WORK/$label.err" >&2
    fi
}
# The commands, as arrays (CMD) so that no path is split.
ic_cmd()   { CMD=("$BIN" fetch "$PAGE_URL" --out "$1" --quiet); }
wget_cmd() { CMD=(wget2 -p -k "--max-threads=$CONCURRENCY" -q -P "$1" "$PAGE_URL"); }
curl_cmd() { CMD=(curl --parallel --parallel-max "$CONCURRENCY" -sS --fail --create-dirs -K "$2"); }

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
wait_idle
BUSY_BEFORE=$(cpu_busy)

# Correctness first (untimed; also brings every file into nginx's page cache for all tools alike).
say ""
say "Checking outputs…"
declare -A CHECK
if [ "$HAVE_IMGCACHE" = 1 ]; then
    OUT="$WORK/check-imgcache"
    ic_cmd "$OUT"; timed check-imgcache "${CMD[@]}"
    CHECK[imgcache]="$(python3 "$HERE/check_output.py" "$ROOT" --page "$OUT" || true)"
    ic_check_req=$T_REQ
    ic_cmd "$OUT"; timed check-imgcache-warm "${CMD[@]}"
    CHECK[warm]="second run into the same folder made $T_REQ request(s) (cold run: $ic_check_req)"
    CHECK[imgcache-after-warm]="$(python3 "$HERE/check_output.py" "$ROOT" --page "$OUT" || true)"
    rm -rf "$OUT"
fi
if [ "$HAVE_WGET2" = 1 ]; then
    OUT="$WORK/check-wget2"
    wget_cmd "$OUT"; timed check-wget2 "${CMD[@]}"
    CHECK[wget2]="$(python3 "$HERE/check_output.py" "$ROOT" --page "$OUT" || true)"
    rm -rf "$OUT"
fi
OUT="$WORK/check-curl"
curl_cmd "$OUT" "$(curl_config "$OUT")"; timed check-curl "${CMD[@]}"
CHECK[curl]="$(python3 "$HERE/check_output.py" "$ROOT" --files "$OUT" || true)"
rm -rf "$OUT"
for key in imgcache imgcache-after-warm warm wget2 curl; do
    [ -n "${CHECK[$key]:-}" ] || continue
    say "  $(printf '%-20s' "$key") ${CHECK[$key]}"
    case "$key:${CHECK[$key]}" in
        warm:*) ;;
        *:"$IMAGES/$IMAGES "*) ;;
        imgcache*) loud "imgcache's output is INCOMPLETE: ${CHECK[$key]}"; FAILURES+=("imgcache output incomplete") ;;
        *) say "  ($key did not get every image: see the note under the table)" ;;
    esac
done

# Timed rounds, the tools interleaved so that drift on the machine hits them alike.
best() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a + 0 < b + 0) ? a : b }'; }
maxi() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a + 0 > b + 0) ? a : b }'; }
IC_S= IC_KB= IC_REQ= WARM_S= WARM_KB= WARM_REQ= WG_S= WG_KB= WG_REQ= CU_S= CU_KB= CU_REQ=
for round in $(seq "$RUNS"); do
    say "Round $round/$RUNS…"
    wait_idle
    if [ "$HAVE_IMGCACHE" = 1 ]; then
        OUT="$WORK/imgcache-$round"
        ic_cmd "$OUT"; timed "imgcache-$round" "${CMD[@]}"
        IC_S=$(best "$T_S" "$IC_S"); IC_KB=$(maxi "$T_KB" "$IC_KB"); IC_REQ=$T_REQ
        ic_cmd "$OUT"; timed "imgcache-warm-$round" "${CMD[@]}"
        WARM_S=$(best "$T_S" "$WARM_S"); WARM_KB=$(maxi "$T_KB" "$WARM_KB"); WARM_REQ=$(maxi "$T_REQ" "$WARM_REQ")
        rm -rf "$OUT"
    fi
    if [ "$HAVE_WGET2" = 1 ]; then
        OUT="$WORK/wget2-$round"
        wget_cmd "$OUT"; timed "wget2-$round" "${CMD[@]}"
        WG_S=$(best "$T_S" "$WG_S"); WG_KB=$(maxi "$T_KB" "$WG_KB"); WG_REQ=$T_REQ
        rm -rf "$OUT"
    fi
    OUT="$WORK/curl-$round"
    CFG=$(curl_config "$OUT")
    curl_cmd "$OUT" "$CFG"; timed "curl-$round" "${CMD[@]}"
    CU_S=$(best "$T_S" "$CU_S"); CU_KB=$(maxi "$T_KB" "$CU_KB"); CU_REQ=$T_REQ
    rm -rf "$OUT"
done

# MARK: - 6. Report

BUSY_AFTER=$(cpu_busy)

row() { # tool, seconds, images, kb, requests
    if [ -z "$2" ]; then printf '%-44s %10s %10s %13s %9s\n' "$1" "-" "-" "-" "-"; return; fi
    local ips="-"
    [ "$3" = 0 ] || ips=$(awk -v n="$3" -v s="$2" 'BEGIN { printf "%.0f", n / s }')
    printf '%-44s %10.3f %10s %13.1f %9s\n' "$1" "$2" "$ips" "$(awk -v k="$4" 'BEGIN { print k / 1024 }')" "$5"
}
verdict() { awk "BEGIN { exit !($1) }" && echo PASS || echo FAIL; }

printf '\nFetch benchmark: %d images (%s MB, 2-40 KB each, PNG/JPEG/GIF) on one page, nginx on 127.0.0.1, %d cores\n' \
    "$IMAGES" "$site_mb" "$(nproc)"
printf 'Best of %d runs, each into a fresh output folder; peak RSS is the highest of the runs; requests as counted by nginx.\n' "$RUNS"
printf 'CPU busy with other work, in an idle second before/after the runs: %s%% / %s%%' "$BUSY_BEFORE" "$BUSY_AFTER"
if [ "$BUSY_BEFORE" -gt 10 ] || [ "$BUSY_AFTER" -gt 10 ]; then
    printf '   WARNING: other work was running on this machine; the figures are skewed by it'
fi
printf '\n\n'
printf '%-44s %10s %10s %13s %9s\n' "tool" "wall s" "images/s" "peak RSS MB" "requests"
if [ "$HAVE_IMGCACHE" = 1 ]; then
    row "imgcache fetch, cold (default concurrency)" "$IC_S" "$IMAGES" "$IC_KB" "$IC_REQ"
    row "imgcache fetch, warm (same folder again)" "$WARM_S" 0 "$WARM_KB" "$WARM_REQ"
else
    printf '%-44s %s\n' "imgcache fetch" "pending: $SKIP_REASON"
fi
if [ "$HAVE_WGET2" = 1 ]; then
    row "wget2 -p -k, $CONCURRENCY threads" "$WG_S" "$IMAGES" "$WG_KB" "$WG_REQ"
else
    printf '%-44s %s\n' "wget2" "SKIPPED: not available from apt"
fi
row "curl --parallel, $CONCURRENCY at once (images only)" "$CU_S" "$IMAGES" "$CU_KB" "$CU_REQ"

printf '\nTargets:\n'
if [ "$HAVE_IMGCACHE" = 1 ]; then
    if [ "$HAVE_WGET2" = 1 ]; then
        r=$(awk -v a="$IC_S" -v b="$WG_S" 'BEGIN { printf "%.2f", a / b }')
        printf '  imgcache wall / wget2 wall   = %5.2fx  (target <= 0.80x)  %s\n' "$r" "$(verdict "$r <= 0.80")"
    else
        printf '  imgcache wall / wget2 wall   = n/a    (wget2 not available)\n'
    fi
    mb=$(awk -v k="$IC_KB" 'BEGIN { printf "%.1f", k / 1024 }')
    printf '  imgcache peak memory         = %5.1f MB (target < 40 MB)  %s\n' "$mb" "$(verdict "$mb < 40")"
    printf '  warm run wall                = %5.3f s (target < 0.1 s)   %s\n' "$WARM_S" "$(verdict "$WARM_S < 0.1")"
    printf '  warm run requests            = %5s    (target: no image requested; the page itself may be) %s\n' \
        "$WARM_REQ" "$(verdict "$WARM_REQ <= 1")"
    printf '  imgcache wall / curl wall    = %5.2fx  (for context: curl neither parses nor rewrites the page)\n' \
        "$(awk -v a="$IC_S" -v b="$CU_S" 'BEGIN { print a / b }')"
else
    printf '  imgcache rows pending (%s): wall <= 0.8x wget2, peak memory < 40 MB, warm run < 0.1 s\n' "$SKIP_REASON"
fi

printf '\nCorrectness (untimed runs before the timed ones):\n'
for key in imgcache imgcache-after-warm warm wget2 curl; do
    [ -n "${CHECK[$key]:-}" ] && printf '  %-20s %s\n' "$key" "${CHECK[$key]}"
done

printf '\nCommands timed (OUT is a fresh folder each run; the warm run reuses the cold run'"'"'s OUT):\n'
if [ "$HAVE_IMGCACHE" = 1 ]; then ic_cmd OUT; printf '  %s    # cold, then again for warm\n' "${CMD[*]}"; fi
if [ "$HAVE_WGET2" = 1 ]; then wget_cmd OUT2; printf '  %s\n' "${CMD[*]}"; fi
curl_cmd OUT3 CONFIG; printf '  %s    # CONFIG: %d url = / output = pairs, output paths under OUT3\n' "${CMD[*]}" "$IMAGES"
printf '  each wrapped as /usr/bin/time -f %%M (peak RSS); wall time from date +%%s%%N around it\n'

if [ ${#FAILURES[@]} -gt 0 ]; then
    printf '\nPROBLEMS: %s\n' "${FAILURES[*]}"
    exit 1
fi
