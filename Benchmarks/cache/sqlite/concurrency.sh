#!/usr/bin/env bash
# Several processes on one cache folder, for each engine (store, grdb), on tmpfs:
#  1. "a reader never waits for a writer": a reader process times 30 warm pages (2,000 lookups
#     each, one store) alone, then while a writer process stores 20,000 images one by one
#     (one lock turn / one transaction each) into the same folder;
#  2. crash safety: `populate` killed with SIGKILL at a random moment, 4 times, then `verify`
#     (intact entries, records whose file is not intact, files without a record, index readable).
# usage: bash concurrency.sh [--entries N]   (after bench.sh has built bin/)
set -euo pipefail
cd "$(dirname "$0")"
ENTRIES=${2:-100000}
D=/dev/shm/sqlite-weigh-conc
for e in store grdb; do
    B=bin/weigh-$e
    rm -rf "$D"; "$B" populate "$D" "$ENTRIES" 64 >/dev/null
    LAST=$(( ENTRIES / 2000 - 1 ))
    echo "$e: reader alone:            $("$B" warm-loop "$D" "$LAST" 30)"
    "$B" store-each "$D" "$ENTRIES" 20000 1000000000000 4000 > /tmp/conc-writer.out &
    W=$!
    sleep 0.3
    echo "$e: reader beside a writer:  $("$B" warm-loop "$D" "$LAST" 30)"
    kill -0 $W 2>/dev/null && echo "$e:   (the writer was still running when the reader ended)" || echo "$e:   (the writer ended before the reader)"
    wait $W; echo "$e: writer: $(cat /tmp/conc-writer.out)"
    for k in 1 2 3 4; do
        rm -rf "$D"
        "$B" populate "$D" "$ENTRIES" 64 >/dev/null 2>&1 &
        P=$!
        sleep "$(python3 -c "import random; print(round(random.uniform(0.5, 2.5), 2))")"
        kill -9 $P 2>/dev/null || true; wait $P 2>/dev/null || true
        echo "$e: killed populate #$k -> $("$B" verify "$D")"
    done
done
rm -rf "$D"
