#!/usr/bin/env bash
# Builds what bench.sh runs: the clone of imgcache with the weighing's additions (the real
# `imgcache` and `weigh-store`), `weigh-grdb`, and the web root the cli engine fetches.
# usage: bash setup.sh [imgcache repository, default: this repository]
set -euo pipefail
cd "$(dirname "$0")"
HERE=$PWD
SRC=${1:-$(git -C "$(dirname "$0")" rev-parse --show-toplevel)}
dpkg -s libsqlite3-dev >/dev/null 2>&1 || apt-get install -y libsqlite3-dev
if [ ! -d imgcache-src ]; then
    git clone -q "$SRC" imgcache-src
    # The commit the weighing measured: the shim extends the store from inside its module, which
    # was then ImgCache (the store has been a module of its own, ImgCacheStore, since).
    git -C imgcache-src checkout -q 518a61f
    cp clone-additions/WeighShim.swift imgcache-src/Sources/ImgCache/
    mkdir -p imgcache-src/Sources/weigh-store
    cp clone-additions/weigh-store-main.swift imgcache-src/Sources/weigh-store/main.swift
    ln -s "$HERE/Sources/weigh-grdb/Workload.swift" imgcache-src/Sources/weigh-store/Workload.swift
    (cd imgcache-src && git apply "$HERE/clone-additions/Package.swift.diff")
fi
(cd imgcache-src && swift build -c release --product imgcache && swift build -c release --product weigh-store)
swift build -c release --product weigh-grdb
mkdir -p bin && cp imgcache-src/.build/release/imgcache imgcache-src/.build/release/weigh-store .build/release/weigh-grdb bin/
W=/var/tmp/sqlite-weigh
if [ ! -f "$W/www/cold/index.html" ]; then
    (cd imgcache-src &&
     python3 Benchmarks/fetch/make_site.py "$W/www" --images 102001 --min-kb 0.5 --max-kb 4 &&
     python3 Benchmarks/cache/make_pages.py "$W/www" "$W/pages" --page-images 2000 --pages 50 \
         --extra new-2000:100000:2000 --extra new-1:102000:1 &&
     python3 Benchmarks/fetch/make_site.py "$W/www/cold" --images 10000)
fi
echo "ready: bash bench.sh --rounds 5; python3 report.py results/results.tsv; bash concurrency.sh"
