#!/usr/bin/env bash
# Cache benchmark: a cache folder that lives for months. `imgcache fetch` fills one cache folder with
# 100,000 images from a local nginx (through the library, as a user's runs would), then times what a
# big cache must keep fast, with the folder on tmpfs and on the disk:
#   - `imgcache cache stats`                                            target: under 1 s
#   - a warm fetch of a 2,000-image page, every image cached            target: under 0.1 s
#     (also timed with the index grown to just short of compaction)
#   - the first write that makes the index compact itself               target: under 1 s
#   - eviction under --max-cache-size: 2,000 new images with the cap at the cache's size (one
#     eviction per image), and one new image with the cap at half of it (50,000 evicted at once);
#     each under 1 s, and the images in the folder add up to at most the cap afterwards (and, for
#     scale, `rm -rf` of what is left: what deleting files costs on that file system)
#   - a cold fetch of a 10,000-image page (2-40 KB images) into an empty cache: peak memory under 60 MB
#
# usage: bash Benchmarks/cache/run.sh [--entries N] [--runs N] [--kinds tmpfs,disk] [--keep]
#                                     [--wait-idle S] [--tool-timeout S]
#   --entries N       images in the big cache, in pages of 2,000 (default 100000)
#   --runs N          timed runs of the repeatable steps; best wall time reported (default 3)
#   --kinds LIST      where the cache folder is: tmpfs (/dev/shm), disk (TMPDIR or /tmp), or both
#                     (default tmpfs,disk)
#   --keep            keep the temp folders (site, caches, logs) and print their paths
#   --wait-idle S     before each timed step, wait while other work keeps the CPUs busy, S seconds in
#                     all (default 60)
#   --tool-timeout S  each run is killed after S seconds (default 300)
# IMGCACHE_BIN=/path/to/imgcache uses that binary instead of building one.
# Run from the repository root. Only ever talks to 127.0.0.1.
set -euo pipefail

# The options, setup, timing and cleanup it shares with the other benchmarks (nginx, `timed`, …).
source "$(dirname "$0")/../common/bench.sh"
ENTRIES=100000
KINDS=tmpfs,disk
own_option() { # option value → OPT_ARGS; fails on an option it does not know
    case "$1" in
        --entries) ENTRIES=$2 ;;
        --kinds) KINDS=$2 ;;
        *) return 1 ;;
    esac
    OPT_ARGS=2
}
parse_options "$@"
[[ "$ENTRIES" =~ ^[1-9][0-9]*$ ]] && [ $(( ENTRIES % 2000 )) = 0 ] ||
    { echo "--entries needs a positive multiple of 2000" >&2; exit 64; }
[[ "$KINDS" =~ ^(tmpfs|disk)(,(tmpfs|disk))?$ ]] || { echo "--kinds takes tmpfs, disk or tmpfs,disk" >&2; exit 64; }
cd "$(dirname "$0")/../.."
HERE=Benchmarks/cache
PAGE_IMAGES=2000
PAGES=$(( ENTRIES / PAGE_IMAGES ))
LAST_PAGE=$(printf 'page-%03d.html' $(( PAGES - 1 )))   # the warm runs' page (page-000 grows the index)
COLD_IMAGES=10000
SLOW_REPEAT=100000      # every step runs its --runs times, however slow
LABEL_WIDTH=24          # timed's label column: evict-steady-tmpfs-1

# MARK: - 1. Install what is missing (Debian packages)

ensure_tools " (the readiness probe)"
ensure_build_deps

# MARK: - 2. Temp folders, the site

make_temp_dirs cachebench "$([[ ",$KINDS," == *",disk,"* ]] && echo 1 || echo 0)"
ROOT="$WORK/www"            # nginx's web root
SITE_DIR="$WORK/pages"      # the big cache's pages and nothing else, fetched as one site
say "Generating $(( ENTRIES + PAGE_IMAGES + 1 )) images of 0.5-4 KB and their pages…"
# Small images: what is measured is the cache's bookkeeping of many entries, not bytes.
python3 Benchmarks/fetch/make_site.py "$ROOT" --images $(( ENTRIES + PAGE_IMAGES + 1 )) --min-kb 0.5 --max-kb 4 >&2
# page-NNN: the big cache; new-2000 and new-1: images not in it; s100, s10, s1: revalidation steps.
python3 "$HERE/make_pages.py" "$ROOT" "$SITE_DIR" --page-images "$PAGE_IMAGES" --pages "$PAGES" \
    --extra "new-2000:$ENTRIES:$PAGE_IMAGES" --extra "new-1:$(( ENTRIES + PAGE_IMAGES )):1" \
    --extra s100:0:100 --extra s10:0:10 --extra s1:0:1 >&2
say "Generating the $COLD_IMAGES-image page (2-40 KB images, as Benchmarks/fetch's)…"
python3 Benchmarks/fetch/make_site.py "$ROOT/cold" --images "$COLD_IMAGES" >&2

# MARK: - 3. nginx on 127.0.0.1 (plain HTTP)

TLS=""          # start_nginx fills in a certificate path the template does not use
pick_ports() { PORT=$(free_port); TLS_PORT=""; }
nginx_ready() { curl -sf -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/__status"; }
start_nginx_on_free_ports
BASE="http://127.0.0.1:$PORT/"
say "nginx $NGINX_VERSION serving $ROOT on 127.0.0.1:$PORT, pid $NGINX_PID"

# MARK: - 4. imgcache

find_imgcache
HAVE_IMGCACHE=1

# MARK: - 5. Steps

RESULTS_FIELDS="kind step round rc wall user sys rss requests statuses check_ok check_msg error index_bytes"
record() { # kind step round [index bytes] → a line of RESULTS (after timed and a check)
    local IFS=$'\t'
    printf '%s\n' "$1	$2	$3	$T_RC	$T_S	$T_U	$T_SYS	$T_KB	$T_REQ	$T_STATUS	$C_OK	${C_MSG//$'\t'/ }	${T_ERR//$'\t'/ }	${4:-}" >> "$RESULTS"
    [ "$T_RC" = 0 ] || FAILURES+=("$1 $2 (run $3): $T_ERR")
    [ "$C_OK" = 1 ] || FAILURES+=("$1 $2 (run $3): $C_MSG")
}
ok_if() { # command... → C_OK, C_MSG from its last output line and status
    if C_MSG=$("$@" 2>&1); then C_OK=1; else C_OK=0; fi
    C_MSG=$(tail -1 <<<"$C_MSG")
}
index_bytes() { stat -c %s "$CACHE/.imgcache.index" 2>/dev/null || echo 0; }
index_inode() { stat -c %i "$CACHE/.imgcache.index" 2>/dev/null || echo 0; }
stats_field() { # field → from `cache stats --json` (untimed)
    "$BIN" cache stats --cache-dir "$CACHE" --json | python3 -c "import json, sys; print(json.load(sys.stdin)['$1'])"
}
fetch_cmd() { # page (a name under the web root, or site) [fetch options...] → CMD; the page is written to OUT/<its name>
    local page=$1; shift
    if [ "$page" = site ]; then
        CMD=("$BIN" fetch "$SITE_DIR" --base-url "$BASE" --out "$OUT/site" --cache-dir "$CACHE" --quiet "$@")
    else
        CMD=("$BIN" fetch "$BASE$page" --out "$OUT" --cache-dir "$CACHE" --quiet "$@")
    fi
}
untimed() { # what, command... → runs it quietly, or exits naming what failed
    local what=$1; shift
    "$@" </dev/null >"$WORK/untimed.out" 2>&1 || { say "$what failed:"; tail -5 "$WORK/untimed.out" >&2; exit 1; }
}
check_warm() { # page out-page
    ok_if python3 "$HERE/check_cache.py" page "$ROOT" "$1" "$2"
    if [ "$C_OK" = 1 ] && [ "$T_REQ" != 1 ]; then C_OK=0; C_MSG="$T_REQ requests: a warm run asks for the page only"; fi
}

# One cache folder through every step. Revalidating (--max-age 0) appends a whole record per image,
# which is how the index is grown towards compaction: nginx answers 304, nothing is downloaded.
run_kind() { # kind
    local kind=$1 r cap rec limit len inode
    if [ "$kind" = tmpfs ]; then CACHE="$SHM/cache"; OUT="$SHM/out"; else CACHE="$WORK/cache"; OUT="$WORK/out"; fi
    rm -rf "$CACHE" "$OUT"
    say ""
    say "Cache on $kind ($CACHE):"

    wait_idle
    fetch_cmd site
    timed "populate-$kind" "${CMD[@]}"
    ok_if test "$(stats_field entries)" = "$ENTRIES"
    C_MSG="entries: $(stats_field entries) of $ENTRIES"
    record "$kind" populate 1 "$(index_bytes)"

    for r in $(seq "$RUNS"); do
        wait_idle
        CMD=("$BIN" cache stats --cache-dir "$CACHE" --json)
        timed "stats-$kind-$r" "${CMD[@]}"
        ok_if grep -q "\"entries\":$ENTRIES," "$WORK/stats-$kind-$r.out"
        C_MSG=$(cat "$WORK/stats-$kind-$r.out")
        record "$kind" stats "$r" "$(index_bytes)"
    done
    for r in $(seq "$RUNS"); do
        wait_idle
        fetch_cmd "$LAST_PAGE"
        timed "warm-$kind-$r" "${CMD[@]}"
        check_warm "$LAST_PAGE" "$OUT/$LAST_PAGE"
        record "$kind" warm "$r" "$(index_bytes)"
    done

    # Grow the index to just short of compaction: it compacts once it is longer than
    # max(256 KiB, 1,200 bytes per entry) (CacheFolderSession.compactIfLarge).
    limit=$(( ENTRIES * 1200 > 262144 ? ENTRIES * 1200 : 262144 ))
    rec=$(( $(index_bytes) / ENTRIES + 8 ))        # bytes per revalidation record, with a margin
    inode=$(index_inode)
    say "  growing the index from $(index_bytes) bytes towards $limit by revalidating (--max-age 0)…"
    while [ $(( $(index_bytes) + (ENTRIES + 2 * PAGE_IMAGES) * rec )) -lt "$limit" ]; do
        fetch_cmd site --max-age 0; untimed "revalidating the site" "${CMD[@]}"
    done
    while [ $(( $(index_bytes) + 2 * PAGE_IMAGES * rec )) -lt "$limit" ]; do
        fetch_cmd page-000.html --max-age 0; untimed "revalidating page-000" "${CMD[@]}"
    done
    # page-000 was just revalidated: its warm runs record no use (uses are recorded once a minute).
    fetch_cmd page-000.html --max-age 0; untimed "revalidating page-000" "${CMD[@]}"
    say "  index: $(index_bytes) bytes"
    for r in $(seq "$RUNS"); do
        wait_idle
        fetch_cmd page-000.html
        timed "warm-long-$kind-$r" "${CMD[@]}"
        check_warm page-000.html "$OUT/page-000.html"
        record "$kind" warm-long-index "$r" "$(index_bytes)"
    done
    for step in 100 10; do
        while [ $(( $(index_bytes) + step * rec )) -lt "$limit" ]; do
            fetch_cmd "s$step.html" --max-age 0; untimed "revalidating s$step" "${CMD[@]}"
        done
    done
    [ "$(index_inode)" = "$inode" ] || say "  note: the index compacted before the timed step (uses recorded by a warm run?)"
    # One image revalidated per run, until a run's record makes the index compact.
    for r in $(seq 40); do
        inode=$(index_inode)
        len=$(index_bytes)
        wait_idle
        fetch_cmd s1.html --max-age 0
        timed "revalidate-1-$kind-$r" "${CMD[@]}"
        ok_if python3 "$HERE/check_cache.py" page "$ROOT" s1.html "$OUT/s1.html"
        if [ "$(index_inode)" != "$inode" ]; then
            C_MSG="index $len -> $(index_bytes) bytes (compacted); $C_MSG"
            record "$kind" compaction 1 "$len"
            break
        fi
        record "$kind" revalidate-1 "$r" "$len"
    done
    [ "$(index_inode)" != "$inode" ] || FAILURES+=("$kind: the index never compacted")

    # Eviction: a fetch of PAGE under a cap of CAP bytes, timed, then the cap checked on the folder.
    evict_step() { # step page cap
        wait_idle
        fetch_cmd "$2" --max-cache-size "$3"
        timed "$1-$kind" "${CMD[@]}"
        ok_if python3 "$HERE/check_cache.py" folder "$CACHE" "$3"
        C_MSG="$C_MSG; $(stats_field entries) entries"
        record "$kind" "$1" 1 "$(index_bytes)"
    }
    # First the cap at the cache's size: each of 2,000 new images evicts about one.
    evict_step evict-steady new-2000.html "$(stats_field bytes)"
    # Then the cap at half: one new image evicts half the cache at once.
    evict_step evict-half new-1.html "$(( $(stats_field bytes) / 2 ))"
    # For scale: what deleting the rest of the folder costs here (this file system's unlink).
    local files
    files=$(find "$CACHE" -type f | wc -l)
    CMD=(rm -rf "$CACHE")
    timed "rm-rf-$kind" "${CMD[@]}"
    ok_if test ! -e "$CACHE"
    C_MSG="rm -rf of the cache folder: $files files"
    record "$kind" rm-rf 1 0
    rm -rf "$OUT"

    for r in $(seq "$RUNS"); do
        rm -rf "$CACHE" "$OUT"
        wait_idle
        fetch_cmd cold/index.html
        timed "cold-10k-$kind-$r" "${CMD[@]}"
        ok_if python3 Benchmarks/fetch/check_output.py "$ROOT/cold" --page "$OUT/index.html"
        record "$kind" cold-10k "$r" "$(index_bytes)"
    done
    rm -rf "$CACHE" "$OUT"
}

wait_idle
BUSY_BEFORE=$(cpu_busy)
START=$(date +%s)
for kind in tmpfs disk; do
    if [[ ",$KINDS," == *",$kind,"* ]]; then run_kind "$kind"; fi
done
ELAPSED=$(( $(date +%s) - START ))
BUSY_AFTER=$(cpu_busy)

# MARK: - 6. Report

meta cores "$(nproc)"
meta busy "$BUSY_BEFORE" "$BUSY_AFTER"
meta fs tmpfs "$SHM_FS" "$SHM"
meta fs disk "$DISK_FS" "$WORK"
meta elapsed "$ELAPSED"
meta tool_timeout "$TOOL_TIMEOUT"
meta nginx "$NGINX_VERSION"
meta entries "$ENTRIES"
meta runs "$RUNS"
meta fields $RESULTS_FIELDS
python3 "$HERE/report.py" "$RESULTS" "$META"
exit_if_failures
