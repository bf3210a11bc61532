#!/usr/bin/env bash
# The weighing: imgcache's hand-built cache index against a GRDB/SQLite one, on the workloads of
# Benchmarks/cache/run.sh, in one run, engines taking turns (the order rotates every round).
#   cli    the real `imgcache` release binary, through `fetch` from a local nginx (run.sh's steps)
#   store  the hand-built ImageCacheStore at the index + files level (imgcache-src's weigh-store)
#   grdb   the GRDB prototype at the same level (weigh-grdb), SQLite's default 2 MB page cache
#   grdb32 the same with a 32 MB page cache (PRAGMA cache_size = -32000)
# Each step is one process; measure.py reads its wall time and, from wait4, its user and system CPU
# and peak RSS (what GNU time -v reports, to the microsecond instead of 10 ms).
#
# usage: bash bench.sh [--rounds N] [--entries N] [--batch N] [--dir DIR] [--engines cli,store,grdb,grdb32] [--out FILE]
#   --dir: where the cache folders go (default /dev/shm/sqlite-weigh: tmpfs)
set -euo pipefail
cd "$(dirname "$0")"
HERE=$PWD
ROUNDS=5 ENTRIES=100000 BATCH=64 DIR=/dev/shm/sqlite-weigh ENGINES=cli,store,grdb,grdb32 OUTFILE=$HERE/results/results.tsv
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) ROUNDS=$2 ;; --entries) ENTRIES=$2 ;; --batch) BATCH=$2 ;; --dir) DIR=$2 ;;
        --engines) ENGINES=$2 ;; --out) OUTFILE=$2 ;; *) echo "unknown option $1" >&2; exit 64 ;;
    esac
    shift 2
done
IMGCACHE=${IMGCACHE_BIN:-$HERE/bin/imgcache}
STORE=${STORE_BIN:-$HERE/bin/weigh-store}
GRDB=${GRDB_BIN:-$HERE/bin/weigh-grdb}
SITE_ROOT=${SITE_ROOT:-/var/tmp/sqlite-weigh/www}       # made by make_site.sh
SITE_DIR=${SITE_DIR:-/var/tmp/sqlite-weigh/pages}
PAGES=$(( ENTRIES / 2000 ))
LAST=$(( PAGES - 1 ))
mkdir -p "$DIR" "$(dirname "$OUTFILE")"
LOGS=$(mktemp -d /tmp/sqlite-weigh-logs.XXXXXX)

# MARK: nginx on 127.0.0.1, as run.sh's (only when the cli engine runs)
NGINX_PID=
cleanup() { [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null; wait 2>/dev/null || true; }
trap cleanup EXIT
if [[ ",$ENGINES," == *",cli,"* ]]; then
    PREFIX=$LOGS/nginx; mkdir -p "$PREFIX"
    PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    sed -e "s|@PORT@|$PORT|g" -e "s|@ACCESS_LOG@|/dev/null|g" -e "s|@ROOT@|$SITE_ROOT|g" -e "s|@PREFIX@|$PREFIX|g" \
        -e "s|@USER@|$(id -un) $(id -gn)|g" imgcache-src/Benchmarks/cache/nginx.conf.template > "$PREFIX/nginx.conf"
    nginx -p "$PREFIX" -c "$PREFIX/nginx.conf" -e "$PREFIX/error.log" 2>>"$PREFIX/error.log" &
    NGINX_PID=$!
    for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/__status" && break; sleep 0.1; done
    BASE="http://127.0.0.1:$PORT/"
fi

[ -s "$OUTFILE" ] || printf 'engine\tstep\tround\trc\twall\tuser\tsys\trss_kb\toutput\n' > "$OUTFILE"
timed() { # engine step round command... → a line of OUTFILE
    local engine=$1 step=$2 round=$3; shift 3
    local t=$LOGS/time.txt o=$LOGS/out.txt rc=0
    python3 "$HERE/measure.py" "$t" "$@" >"$o" 2>&1 || rc=$?
    local wall user sys rss
    read -r wall user sys rss _ < "$t"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$engine" "$step" "$round" "$rc" "$wall" "$user" "$sys" "$rss" \
        "$(tail -1 "$o" | tr '\t\n' '  ' | cut -c1-200)" >> "$OUTFILE"
    printf '  %-6s %-14s r%s rc=%s wall=%s cpu=%s+%s rss=%sKB  %s\n' "$engine" "$step" "$round" "$rc" "$wall" "$user" "$sys" "$rss" "$(tail -1 "$o" | cut -c1-100)" >&2
}
bytes_of() { # engine folder → the cache's bytes (untimed)
    case $1 in
        cli) "$IMGCACHE" cache stats --cache-dir "$2" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["bytes"])' ;;
        store) "$STORE" stats "$2" | sed 's/.*bytes=\([0-9]*\).*/\1/' ;;
        grdb*) WEIGH_STATS_SQL_ONLY=1 "$GRDB" stats "$2" | sed 's/.*bytes=\([0-9]*\).*/\1/' ;;
    esac
}
step() { # engine step round → runs that engine's version of the step
    local e=$1 s=$2 r=$3 C=$DIR/$1 cap
    local O=$DIR/$1-out
    case "$e:$s" in
        cli:populate) rm -rf "$C" "$O"; timed cli populate "$r" "$IMGCACHE" fetch "$SITE_DIR" --base-url "$BASE" --out "$O/site" --cache-dir "$C" --quiet ;;
        cli:stats) timed cli stats "$r" "$IMGCACHE" cache stats --cache-dir "$C" --json ;;
        cli:warm) timed cli warm "$r" "$IMGCACHE" fetch "${BASE}page-$(printf %03d $LAST).html" --out "$O" --cache-dir "$C" --quiet ;;
        cli:evict-steady) cap=$(bytes_of cli "$C"); timed cli evict-steady "$r" "$IMGCACHE" fetch "${BASE}new-2000.html" --out "$O" --cache-dir "$C" --quiet --max-cache-size "$cap" ;;
        cli:evict-half) cap=$(( $(bytes_of cli "$C") / 2 )); timed cli evict-half "$r" "$IMGCACHE" fetch "${BASE}new-1.html" --out "$O" --cache-dir "$C" --quiet --max-cache-size "$cap" ;;
        cli:cold) rm -rf "$C" "$O"; timed cli cold-10k "$r" "$IMGCACHE" fetch "${BASE}cold/index.html" --out "$O" --cache-dir "$C" --quiet ;;
        store:*|grdb:*|grdb32:*)
            local B
            case $e in
                store) B=("$STORE") ;;
                grdb) B=("$GRDB") ;;
                grdb32) B=(env "WEIGH_PRAGMAS=PRAGMA cache_size = -32000" "$GRDB") ;;
            esac
            case "$s" in
                populate) rm -rf "$C"; timed "$e" populate "$r" "${B[@]}" populate "$C" "$ENTRIES" "$BATCH" ;;
                stats) timed "$e" stats "$r" "${B[@]}" stats "$C" ;;
                stats-sql) [ "$e" != store ] && timed "$e" stats-sql "$r" env WEIGH_STATS_SQL_ONLY=1 "${B[@]}" stats "$C" ;;
                warm) timed "$e" warm "$r" "${B[@]}" warm "$C" "$LAST" $(( LAST + 10 )) ;;          # no use due (< 60 s)
                warm-uses) timed "$e" warm-uses "$r" "${B[@]}" warm "$C" "$LAST" 1000 ;;           # 2,000 uses recorded
                evict-steady) cap=$(bytes_of "$e" "$C"); timed "$e" evict-steady "$r" "${B[@]}" store-each "$C" "$ENTRIES" 2000 "$cap" 3000 ;;
                evict-half) cap=$(( $(bytes_of "$e" "$C") / 2 )); timed "$e" evict-half "$r" "${B[@]}" store-each "$C" $(( ENTRIES + 2000 )) 1 "$cap" 3001 ;;
                cold) rm -rf "$C"; timed "$e" cold-10k "$r" "${B[@]}" cold "$C" 10000 "$BATCH" ;;
            esac ;;
    esac
    return 0
}
IFS=, read -ra ENG <<<"$ENGINES"
for r in $(seq "$ROUNDS"); do
    # Rotate the order each round: cli,store,grdb / store,grdb,cli / grdb,cli,store / ...
    k=$(( (r - 1) % ${#ENG[@]} )); ORDER=("${ENG[@]:k}" "${ENG[@]:0:k}")
    echo "round $r: ${ORDER[*]}  (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
    for s in populate stats stats-sql warm warm-uses evict-steady evict-half rm-rf cold; do
        for e in "${ORDER[@]}"; do
            if [ "$s" = rm-rf ]; then
                # For scale: what deleting what is left costs on this file system.
                [ -d "$DIR/$e" ] && timed "$e" rm-rf "$r" rm -rf "$DIR/$e"
            else
                step "$e" "$s" "$r"
            fi
        done
    done
    # Peak folder sizes are not kept: every round starts from nothing.
    rm -rf "$DIR"/*
done
echo "results: $OUTFILE" >&2
