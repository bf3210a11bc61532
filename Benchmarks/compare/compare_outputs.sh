#!/usr/bin/env bash
# Proves a change left imgcache's outputs as they were: runs two imgcache binaries on the same
# inputs and compares, byte for byte, everything they write and print.
#
# usage: Benchmarks/compare/compare_outputs.sh BEFORE_BIN AFTER_BIN [--pages DIR]
#   --pages DIR  the real pages (default ../shared/pages beside the repository)
#
# 1. Real pages: `imgcache rewrite` (with each page's URL and declared charset) and `imgcache list`
#    (plain and --json) of every page in DIR/MANIFEST.tsv: output file, stdout, stderr, exit status.
# 2. The site benchmark's site (Benchmarks/site/make_site.py, 60 pages, 20 stylesheets, 600 images), served by
#    `python3 -m http.server` on 127.0.0.1: `imgcache fetch SITE --base-url URL` in build mode and in
#    live mode, and `imgcache fetch PAGE_URL` of one page (the fetch benchmark's case): every file
#    under --out, the cache's images, the manifest, stdout (--events ndjson) and stderr.
#    What changes from run to run whatever the binary is normalised first, and only that: the
#    manifest's generatedAt, the events' elapsed seconds, and the order of events (downloads finish
#    in the order the network says), compared as sorted lines.
# Ends with `N passed, M failed` (one check a group); exit status 1 when anything differs.
# Only ever talks to 127.0.0.1.
set -uo pipefail
cd "$(dirname "$0")/../.."
BEFORE=${1:?BEFORE_BIN}; AFTER=${2:?AFTER_BIN}; shift 2
PAGES=../shared/pages
while [ $# -gt 0 ]; do case "$1" in --pages) PAGES=$2; shift 2 ;; *) echo "unknown option $1" >&2; exit 64 ;; esac; done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/imgcache-compare.XXXXXX")
SERVER_PID=
cleanup() { [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
passed=0; failed=0
verdict() { # name differences
    if [ "$2" = 0 ]; then echo "$1: 0 differences"; passed=$((passed + 1)); else echo "$1: $2 differences"; failed=$((failed + 1)); fi
}

# MARK: 1. Real pages
if [ -f "$PAGES/MANIFEST.tsv" ]; then
    python3 - "$PAGES" > "$WORK/pages.tsv" <<'PY'
import csv, json, sys
pages = sys.argv[1]
base = json.load(open(pages + "/base_urls.json"))
for row in csv.DictReader(open(pages + "/MANIFEST.tsv"), delimiter="\t"):
    print("\t".join([row["file"], base.get(row["file"], "http://example.com/page.html"), row["declared_charset"]]))
PY
    differences=0; count=0
    while IFS=$'\t' read -r file url charset; do
        count=$((count + 1))
        for which in before after; do
            bin=$BEFORE; [ $which = after ] && bin=$AFTER
            out=$WORK/run; mkdir -p "$out"
            args=(--base-url "$url"); [ -n "$charset" ] && args+=(--charset "$charset")
            "$bin" rewrite "$PAGES/$file" "${args[@]}" --output "$out/page.html" > "$out/stdout" 2> "$out/stderr"; echo "rewrite $?" >> "$out/stderr"
            "$bin" list "$PAGES/$file" "${args[@]}" --json > "$out/json" 2>> "$out/stderr"; echo "list --json $?" >> "$out/stderr"
            "$bin" list "$PAGES/$file" "${args[@]}" > "$out/plain" 2>> "$out/stderr"; echo "list $?" >> "$out/stderr"
            mv "$out" "$WORK/$which"
        done
        for part in page.html stdout stderr json plain; do
            if ! cmp -s "$WORK/before/$part" "$WORK/after/$part"; then
                differences=$((differences + 1))
                [ "$differences" -le 5 ] && echo "  differs: $file ($part) $(cmp "$WORK/before/$part" "$WORK/after/$part" 2>&1 | head -1)"
            fi
        done
        rm -rf "$WORK/before" "$WORK/after"
    done < "$WORK/pages.tsv"
    verdict "real pages: rewrite and list of $count pages" "$differences"
else
    echo "real pages: $PAGES/MANIFEST.tsv not found, skipped"
fi

# MARK: 2. A site over HTTP
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
ORIGIN=http://127.0.0.1:$PORT
python3 Benchmarks/site/make_site.py "$WORK/docroot" "$WORK/site" --origin "$ORIGIN" --pages 60 --images 600 >/dev/null \
    || { echo "could not generate the site"; echo "$passed passed, $((failed + 1)) failed"; exit 1; }
(cd "$WORK/docroot" && exec python3 -m http.server "$PORT" --bind 127.0.0.1 >/dev/null 2>&1) &
SERVER_PID=$!
for _ in $(seq 50); do curl -sf -o /dev/null "$ORIGIN/site/index.html" && break; sleep 0.1; done
curl -sf -o /dev/null "$ORIGIN/site/index.html" || { echo "the site server did not start"; echo "$passed passed, $((failed + 1)) failed"; exit 1; }

normalise() { # folder → what two runs of one binary agree on
    local dir=$1
    [ -f "$dir/out/imgcache-manifest.json" ] && sed -i -E 's/"generatedAt" : "[^"]*"/"generatedAt" : "-"/' "$dir/out/imgcache-manifest.json"
    [ -f "$dir/stdout" ] && sed -E 's/"elapsed":[0-9.e+-]+/"elapsed":-/' "$dir/stdout" | sort > "$dir/stdout.sorted" && rm "$dir/stdout"
    rm -f "$dir/out/images/.imgcache.index" "$dir/out/images/.imgcache.lookup" "$dir/out/images/.imgcache.lock"
}
run_fetch() { # name args...
    local name=$1; shift
    local differences=0
    for which in before after; do
        bin=$BEFORE; [ $which = after ] && bin=$AFTER
        local dir=$WORK/fetch; rm -rf "$dir"; mkdir -p "$dir"
        (cd "$dir" && "$bin" "$@" --out out --quiet --events ndjson --debounce 0 > stdout 2> stderr; echo "exit $?" >> stderr)
        normalise "$dir"
        mv "$dir" "$WORK/$which"
    done
    if ! diff -r "$WORK/before" "$WORK/after" > "$WORK/diff.txt"; then
        differences=$(grep -c '^diff\|^Only\|^Binary' "$WORK/diff.txt")
        head -5 "$WORK/diff.txt" | sed 's/^/  /'
    fi
    rm -rf "$WORK/before" "$WORK/after"
    verdict "$name" "$differences"
}
# One file at a time: with several, which page's download of a shared image comes first (and so
# which page records it `downloaded`, which `cached`) changes from run to run of one binary.
run_fetch "site folder, build mode" fetch "$WORK/site" --base-url "$ORIGIN/site/" --parallel 1
run_fetch "site folder, live mode" fetch "$WORK/site" --base-url "$ORIGIN/site/" --mode live --parallel 1
run_fetch "one page by URL" fetch "$ORIGIN/site/index.html"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
