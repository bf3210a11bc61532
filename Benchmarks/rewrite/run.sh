#!/usr/bin/env bash
# Rewrite throughput and memory on real saved pages, against the parsers a user could pick instead,
# all in one run: imgcache rewrite; libxml2's HTML SAX parser alone, set up as imgcache sets it up,
# with empty callbacks (a C program: the floor for any rewriter built on libxml2); lxml.html (parse,
# rewrite img src, serialise); selectolax's lexbor (parse, find every img). Then the same on the
# generated dense pages (5,000 image references per MB), and the memory bound on the largest pages.
#
# usage: Benchmarks/rewrite/run.sh [--runs N] [--pages DIR] [--no-dense]   (from anywhere)
#   --runs N     runs per tool and corpus, best taken (default 5); tools take turns within a run
#   --pages DIR  the real pages (default ../shared/pages beside the repository: MANIFEST.tsv lists
#                them); without them, generated pages of ordinary density stand in, and say so
#   --no-dense   skip the generated dense pages and the 100 MB page
#   --no-families  skip the generated families: pages of shapes the real pages have little of
#                (tidy-normalised XHTML, inline style attributes, big <style> blocks, inline SVG,
#                long srcsets, data: URLs, thousands of links; 40 pages of 500 KB each), every
#                tool on each, with imgcache's ratio to the SAX floor and to lxml per family
#   --disk DIR   where the disk run puts its pages and outputs (default /var/tmp; must not be tmpfs)
#   --no-disk    skip the run with pages and outputs on disk
#   --instructions  also count, with callgrind, the instructions of imgcache and of the SAX floor
#                over the real pages and over the first 8 pages of each family (about 5 minutes):
#                figures that do not move with the machine's load, as the times do here by up to
#                a third from run to run, and that say how much of the work is imgcache's own
#   IMGCACHE_BIN=path uses that imgcache instead of building one (release, --static-swift-stdlib)
#
# Every figure is a whole process over the whole corpus: start, reading each file, parsing, and
# (for the rewriters) writing each page. Pages and outputs are on tmpfs (/dev/shm) when there is
# one, so that the figures are CPU, not the disk; the real pages are then run again with pages and
# outputs on disk (each run's outputs deleted before the next, as a build step would). Each tool gets one --base-url for every page
# (http://example.com/page.html), as lxml_rewrite.py does: resolving against each page's own URL
# costs the same.
set -euo pipefail
# `say`, and `find_imgcache` (IMGCACHE_BIN or a release build), shared with the other benchmarks.
source "$(dirname "$0")/../common/bench.sh"
cd "$(dirname "$0")/../.."
HERE=Benchmarks/rewrite
RUNS=5
PAGES_DIR=../shared/pages
DENSE=1
FAMILIES=1
DISK=1
DISK_PARENT=/var/tmp
INSTRUCTIONS=0
BASE_URL=http://example.com/page.html
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) RUNS=$2; shift ;;
        --pages) PAGES_DIR=$2; shift ;;
        --no-dense) DENSE=0 ;;
        --no-families) FAMILIES=0 ;;
        --disk) DISK_PARENT=$2; shift ;;
        --no-disk) DISK=0 ;;
        --instructions) INSTRUCTIONS=1 ;;
        -h|--help) awk 'NR > 1 { if (!/^#/) exit; sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        *) echo "unknown option: $1 (see --help)" >&2; exit 64 ;;
    esac
    shift
done
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "--runs needs a positive whole number" >&2; exit 64; }


# MARK: - Tools

python3 -c "import lxml" 2>/dev/null || pip install -q lxml
python3 -c "import selectolax" 2>/dev/null || pip install -q selectolax
find_imgcache
if [ "$INSTRUCTIONS" = 1 ]; then command -v valgrind >/dev/null || apt_install valgrind; fi

TMP_PARENT=/dev/shm
[ -d "$TMP_PARENT" ] && [ -w "$TMP_PARENT" ] || TMP_PARENT=${TMPDIR:-/tmp}
WORK="$(mktemp -d "$TMP_PARENT/imgcache-rewrite-bench.XXXXXX")"
DISK_WORK=""
trap 'rm -rf "$WORK" ${DISK_WORK:+"$DISK_WORK"}' EXIT
if [ "$DISK" = 1 ]; then
    DISK_WORK="$(mktemp -d "$DISK_PARENT/imgcache-rewrite-bench.XXXXXX")"
    DISK_TYPE=$(df --output=fstype "$DISK_WORK" | tail -1)
    [ "$DISK_TYPE" != tmpfs ] || { echo "--disk $DISK_PARENT is tmpfs: give a folder on disk" >&2; exit 64; }
fi

SAX="$WORK/sax_floor"
# shellcheck disable=SC2046 # pkg-config's flags are separate words
cc -O2 -o "$SAX" "$HERE/sax_floor.c" $(pkg-config --cflags --libs libxml-2.0)
# valgrind gives up on the debug information of a --static-swift-stdlib build; the code counted is
# the same without it.
if [ "$INSTRUCTIONS" = 1 ]; then strip --strip-debug -o "$WORK/imgcache-stripped" "$BIN"; fi

# MARK: - Corpora

# The real pages, copied to tmpfs under names that keep their source folder (two sources may
# hold pages of the same name, and `rewrite --out` writes each page under its own file name).
REAL_TITLE="Real pages ($PAGES_DIR)"
mkdir -p "$WORK/real"
if [ -f "$PAGES_DIR/MANIFEST.tsv" ]; then
    tail -n +2 "$PAGES_DIR/MANIFEST.tsv" | cut -f1 | while read -r file; do
        cp "$PAGES_DIR/$file" "$WORK/real/${file//\//__}"
    done
else
    REAL_TITLE="Generated pages of ordinary density, standing in for the real pages (no $PAGES_DIR/MANIFEST.tsv)"
    python3 "$HERE/make_pages.py" "$WORK/gen" --pages 300 --page-kb 140 --large-mb 2 --density ordinary >/dev/null
    mv "$WORK"/gen/*.html "$WORK/real/"
fi
if [ "$DENSE" = 1 ]; then
    python3 "$HERE/make_pages.py" "$WORK/dense" --pages 40 --page-kb 500 --large-mb 20 >/dev/null
fi

# MARK: - Measuring

# One run of a command: its wall and CPU (user + sys) seconds, to the microsecond, and peak RSS (KB)
# → $WORK/time (measure.py: /usr/bin/time's hundredths moved the ratios by 0.02).
run_once() {
    python3 Benchmarks/common/measure.py "$WORK/time" -- "$@" \
        || { say "failed: $*"; cat "$WORK/time.stderr" >&2; exit 1; }
}

# bench CORPUS_DIR OUT_DIR: every tool over every page of the folder, RUNS times in turns; the best
# wall and the best CPU time of each, and its highest peak RSS → RESULT[tool]="wall cpu kb".
declare -A RESULT
TOOLS=(imgcache sax lxml selectolax)
bench() {
    local corpus=$1 out=$2 tool run wall user sys kb cpu
    local -a pages=("$corpus"/*.html)
    declare -A best_wall best_cpu peak
    for tool in "${TOOLS[@]}"; do best_wall[$tool]=1e9; best_cpu[$tool]=1e9; peak[$tool]=0; done
    for run in $(seq "$RUNS"); do
        for tool in "${TOOLS[@]}"; do
            rm -rf "$out"; mkdir -p "$out"
            case $tool in
                imgcache) run_once "$BIN" rewrite "${pages[@]}" --base-url "$BASE_URL" --out "$out" --quiet ;;
                sax) run_once "$SAX" "${pages[@]}" ;;
                lxml) run_once python3 "$HERE/lxml_rewrite.py" "$out" "${pages[@]}" ;;
                selectolax) run_once python3 "$HERE/selectolax_scan.py" "${pages[@]}" ;;
            esac
            read -r wall user sys kb < "$WORK/time"
            cpu=$(awk "BEGIN{print $user + $sys}")
            awk "BEGIN{exit !($wall < ${best_wall[$tool]})}" && best_wall[$tool]=$wall
            awk "BEGIN{exit !($cpu < ${best_cpu[$tool]})}" && best_cpu[$tool]=$cpu
            [ "$kb" -gt "${peak[$tool]}" ] && peak[$tool]=$kb
        done
        say "  run $run of $RUNS done"
    done
    rm -rf "$out"
    for tool in "${TOOLS[@]}"; do RESULT[$tool]="${best_wall[$tool]} ${best_cpu[$tool]} ${peak[$tool]}"; done
}

# instructions NAME CORPUS_DIR [COUNT]: callgrind's instruction counts for imgcache and the SAX floor
# over the corpus's pages (its first COUNT), added as a line to INSTRUCTION_SUMMARY.
INSTRUCTION_SUMMARY=""
grouped() { sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<<"$1"; }
instructions() {
    local -a pages=("$2"/*.html)
    [ -n "${3:-}" ] && pages=("${pages[@]:0:$3}")
    count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null | awk '/I +refs:/ { gsub(",", "", $NF); print $NF }'; }
    rm -rf "$WORK/out"; mkdir -p "$WORK/out"
    local ic sax
    ic=$(count "$WORK/imgcache-stripped" rewrite "${pages[@]}" --base-url "$BASE_URL" --out "$WORK/out" --quiet)
    sax=$(count "$SAX" "${pages[@]}")
    rm -rf "$WORK/out"
    INSTRUCTION_SUMMARY+=$(printf '%-14s %5d %14s %14s   %5.2fx   %4.0f%%' "$1" "${#pages[@]}" \
        "$(grouped "$ic")" "$(grouped "$sax")" "$(awk "BEGIN{print $ic / $sax}")" \
        "$(awk "BEGIN{print 100 * ($ic - $sax) / $ic}")")$'\n'
}

LABELS=(
    [0]="imgcache rewrite (every kind, byte-exact)"
    [1]="libxml2 HTML SAX alone (C, the floor)"
    [2]="lxml.html parse + img src + serialise"
    [3]="selectolax (lexbor) parse + find img"
)

# report TITLE CORPUS_DIR: the table of RESULT, MB/s of the corpus, imgcache's ratio to each peer.
report() {
    local title=$1 corpus=$2 bytes count largest mb i tool wall cpu kb
    bytes=$(cat "$corpus"/*.html | wc -c)
    count=$(find "$corpus" -name '*.html' | wc -l)
    largest=$(find "$corpus" -name '*.html' -printf '%s\n' | sort -n | tail -1)
    mb=$(awk "BEGIN{print $bytes / 1e6}")
    read -r ic_wall ic_cpu _ <<<"${RESULT[imgcache]}"
    printf '\n%s: %d pages, %.1f MB, largest %.2f MB (best of %d runs, whole process)\n' \
        "$title" "$count" "$mb" "$(awk "BEGIN{print $largest / 1e6}")" "$RUNS"
    printf '%-42s %7s %7s %9s %9s %8s   %s\n' "" "wall s" "CPU s" "MB/s wall" "MB/s CPU" "peak MB" "imgcache's throughput is (wall, CPU)"
    for i in "${!TOOLS[@]}"; do
        tool=${TOOLS[$i]}
        read -r wall cpu kb <<<"${RESULT[$tool]}"
        local ratio=""
        [ "$tool" = imgcache ] || ratio=$(awk "BEGIN{printf \"%.2fx, %.2fx\", $wall / $ic_wall, $cpu / $ic_cpu}")
        printf '%-42s %7.3f %7.3f %9.1f %9.1f %8.1f   %s\n' "${LABELS[$i]}" "$wall" "$cpu" \
            "$(awk "BEGIN{print $mb / $wall}")" "$(awk "BEGIN{print $mb / ($cpu > 0 ? $cpu : 0.001)}")" \
            "$(awk "BEGIN{print $kb / 1024}")" "$ratio"
    done
}

# memory FILE LABEL: imgcache's peak RSS on one page against the bound (4x the page + 30 MB).
memory() {
    local file=$1 label=$2 bytes wall user sys kb
    bytes=$(wc -c < "$file")
    rm -rf "$WORK/one"
    run_once "$BIN" rewrite "$file" --base-url "$BASE_URL" --out "$WORK/one" --quiet
    read -r wall user sys kb < "$WORK/time"
    printf '%-42s %7.2f s %8.1f MB/s   peak %6.1f MB (bound %.1f MB = 4x page + 30 MB)\n' "$label" "$wall" \
        "$(awk "BEGIN{print $bytes / 1e6 / $wall}")" "$(awk "BEGIN{print $kb / 1024}")" \
        "$(awk "BEGIN{print 4 * $bytes / 1048576 + 30}")"
    rm -rf "$WORK/one"
}

# MARK: - Runs

say "Real pages: $RUNS runs of each tool…"
bench "$WORK/real" "$WORK/out"
REAL_REPORT=$(report "$REAL_TITLE" "$WORK/real")
if [ "$INSTRUCTIONS" = 1 ]; then
    say "Real pages: instructions (callgrind)…"
    instructions "real pages" "$WORK/real"
fi
if [ "$DISK" = 1 ]; then
    say "Real pages on disk ($DISK_TYPE, $DISK_WORK): $RUNS runs of each tool…"
    cp -r "$WORK/real" "$DISK_WORK/real"
    sync
    bench "$DISK_WORK/real" "$DISK_WORK/out"
    DISK_REPORT=$(report "The same, pages and outputs on disk ($DISK_TYPE)" "$DISK_WORK/real")
fi
if [ "$DENSE" = 1 ]; then
    say "Generated dense pages: $RUNS runs of each tool…"
    bench "$WORK/dense" "$WORK/out"
    DENSE_REPORT=$(report "Generated dense pages (5,000 image references per MB)" "$WORK/dense")
fi

FAMILY_NAMES=(xhtml inline-style style-blocks svg srcset data-urls links)
declare -A FAMILY_REPORT
FAMILY_SUMMARY=""
if [ "$FAMILIES" = 1 ]; then
    for family in "${FAMILY_NAMES[@]}"; do
        say "Generated family $family: $RUNS runs of each tool…"
        python3 "$HERE/make_pages.py" "$WORK/family" --family "$family" --pages 40 --page-kb 500 --large-mb 0 >/dev/null
        bench "$WORK/family" "$WORK/out"
        FAMILY_REPORT[$family]=$(report "Generated family: $family" "$WORK/family")
        if [ "$INSTRUCTIONS" = 1 ]; then
            say "Generated family $family: instructions (callgrind)…"
            instructions "$family" "$WORK/family" 8
        fi
        read -r ic_wall ic_cpu _ <<<"${RESULT[imgcache]}"
        read -r sax_wall sax_cpu _ <<<"${RESULT[sax]}"
        read -r lxml_wall lxml_cpu _ <<<"${RESULT[lxml]}"
        FAMILY_SUMMARY+=$(printf '%-14s %8.3f %8.3f   %6.2fx %6.2fx   %6.2fx %6.2fx' "$family" "$ic_wall" "$ic_cpu" \
            "$(awk "BEGIN{print $sax_wall / $ic_wall}")" "$(awk "BEGIN{print $sax_cpu / $ic_cpu}")" \
            "$(awk "BEGIN{print $lxml_wall / $ic_wall}")" "$(awk "BEGIN{print $lxml_cpu / $ic_cpu}")")$'\n'
        rm -rf "$WORK/family"
    done
fi

printf '%s\n' "$REAL_REPORT"
if [ "$DISK" = 1 ]; then printf '%s\n' "$DISK_REPORT"; fi
if [ "$DENSE" = 1 ]; then printf '%s\n' "$DENSE_REPORT"; fi
if [ "$FAMILIES" = 1 ]; then
    for family in "${FAMILY_NAMES[@]}"; do printf '%s\n' "${FAMILY_REPORT[$family]}"; done
    printf '\nGenerated families, imgcache against the SAX floor and lxml (throughput ratios; the floor: >= 0.7x on\n'
    printf 'the real pages, lower where references are dense; lxml: >= 1.5x on every family):\n'
    printf '%-14s %8s %8s   %15s   %15s\n' family "wall s" "CPU s" "SAX (wall, CPU)" "lxml (wall, CPU)"
    printf '%s' "$FAMILY_SUMMARY"
fi

if [ "$INSTRUCTIONS" = 1 ]; then
    printf '\nInstructions (callgrind; imgcache own = the share of its instructions beyond the floor):\n'
    printf '%-14s %5s %14s %14s   %6s   %4s\n' corpus pages imgcache "SAX floor" ratio own
    printf '%s' "$INSTRUCTION_SUMMARY"
fi

printf '\nMemory, imgcache alone on one page:\n'
largest_real=$(find "$WORK/real" -name '*.html' -printf '%s %p\n' | sort -n | tail -1 | cut -d' ' -f2-)
memory "$largest_real" "largest "real" page ($(basename "$largest_real"))"
if [ "$DENSE" = 1 ]; then
    memory "$WORK/dense/large.html" "generated 20 MB page"
    python3 "$HERE/make_pages.py" "$WORK/huge" --pages 0 --large-mb 100 >/dev/null
    memory "$WORK/huge/large.html" "generated 100 MB page"
fi
printf '\nTargets on the real pages: imgcache >= 1.5x lxml and >= 0.7x the libxml2 SAX parse (throughput).\n'
