#!/usr/bin/env python3
"""Prints the site benchmark's report from the records run.sh wrote. Not meant to be run by hand.

usage: report.py RESULTS.tsv META.tsv

RESULTS.tsv: one line per timed run: tool, out (tmpfs or disk), round, exit status, wall s, user s,
system s, peak RSS KB, requests, connections, protocols (proto:count,...), TLS versions, statuses,
check ok (1/0), check message, error message, relay CPU ticks during the run, requests for a
URL the run had already requested.
META.tsv: key, values... (see run.sh, section 8, and common_meta in ../common/bench.sh).

Wall: the best (lowest) of the runs that succeeded. CPU: user + system of the median run (by CPU
time). Peak RSS: the highest. The same rules as Benchmarks/fetch/report.py: both use
../common/bench_report.py's Group, and what they print alike.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_report import print_busy, print_how_timed, print_relay, read_groups, read_meta, verdict  # noqa: E402

FIELDS = ("tool out round rc wall user sys rss req conns proto tls status check_ok check_msg err "
          "relay_ticks repeated").split()
TOOL_ORDER = ("imgcache", "wget2")
WALL_RATIO = 0.6
RSS_LIMIT_MB = 60


def label(tool, meta):
    return {"imgcache": "imgcache fetch SITE_DIR (--cacert)",
            "wget2": f"wget2 -p -k --max-threads={meta['threads']} -i urls"}[tool]


def refs(msg):
    """'N/TOTAL image references …' → (N, TOTAL)"""
    m = re.match(r"(\d+)/(\d+) ", msg or "")
    return (int(m.group(1)), int(m.group(2))) if m else (None, None)


def check_text(g):
    """The check column: references and distinct images local, in how many runs all were."""
    if not g.runs:
        return "-"
    good = sum(1 for r in g.runs if r["check_ok"] == "1")
    worst = next((r for r in g.runs if r["check_ok"] != "1"), g.runs[0])
    n, total = refs(worst["check_msg"])
    m = re.search(r"distinct images (\d+/\d+)", worst["check_msg"])
    counts = f"{n}/{total} refs, {m.group(1) if m else '?'} images" if n is not None else worst["check_msg"][:60]
    if good == len(g.runs):
        return f"all local: {counts} ({good}/{len(g.runs)} runs)"
    return f"MISSED in {len(g.runs) - good}/{len(g.runs)} runs: {counts}"


def main():
    results_path, meta_path = sys.argv[1:3]
    meta = read_meta(meta_path)
    groups = read_groups(results_path, FIELDS, ("tool", "out"))
    tools = [t for t in TOOL_ORDER if any(k[0] == t for k in groups)]
    ticks = float(meta["ticks"])
    runs, disk_runs = meta["runs"]
    rtt = 2 * float(meta["latency_ms"])

    print()
    print(f"Site benchmark: {meta['pages']} pages, {meta['stylesheets']} stylesheets, {meta['images']} images "
          f"({meta['site_mb']} MB, 2-40 KB each), nginx {meta['nginx']} on 127.0.0.1, HTTPS + HTTP/2 behind "
          f"{meta['latency_ms']} ms each way ({rtt:g} ms RTT), {meta['cores']} cores, {meta['elapsed']} s of timed runs")
    print(f"{runs} run(s) per tool on tmpfs (/dev/shm), {disk_runs} on the disk ({meta['fs']['disk'][0]}), each into "
          "a fresh folder. wall: the best run (median: the median run's). CPU: user + system of the median run. "
          "RSS: the highest peak.")
    print_busy(meta)
    if meta.get("imgcache") != "available":
        print(f"imgcache: NOT RUN ({meta.get('imgcache')})")

    print()
    print(f"  {'tool':40} {'out':5} {'wall s':>7} {'median':>7} {'CPU s':>6} {'RSS MB':>7} {'requests':>18} "
          f"{'conns':>5}  {'protocol':16} {'relay CPU':>9}  check")
    for tool in tools:
        for kind in ("tmpfs", "disk"):
            g = groups.get((tool, kind))
            if g is None:
                continue
            name = label(tool, meta)
            if not g.ok:
                err = g.failed[0]["err"] if g.failed else "no run"
                print(f"  {name:40} {kind:5} FAILED: {err}   check: {check_text(g)}")
                continue
            proto = g.protocols()
            if g.tls():
                proto += f" ({g.tls()})"
            req = g.spread("req")
            odd = g.odd_statuses()
            if odd:
                req += f" ({odd})"
            rep = g.spread("repeated")
            if rep != "0":
                req += f" ({rep} again)"
            rc = g.relay_cpu(ticks)
            relay = f"{rc:.2f} s" if rc is not None else "-"
            fails = f"; {len(g.failed)} run(s) FAILED: {g.failed[0]['err']}" if g.failed else ""
            print(f"  {name:40} {kind:5} {g.wall:7.3f} {g.wall_median:7.3f} {g.cpu:6.2f} {g.rss_mb:7.1f} "
                  f"{req:>18} {g.spread('conns'):>5}  {proto:16} {relay:>9}  {check_text(g)}{fails}")
    for tool in tools:
        for kind in ("tmpfs", "disk"):
            g = groups.get((tool, kind))
            bad = [r for r in g.runs if r["check_ok"] != "1"] if g is not None else []
            if bad:
                print(f"  {tool} ({kind}, round {bad[0]['round']}) MISSED: {bad[0]['check_msg']}")

    print()
    print("Targets (this run's figures, outputs on tmpfs):")

    ic = groups.get(("imgcache", "tmpfs"))
    wg = groups.get(("wget2", "tmpfs"))
    if meta.get("imgcache") != "available":
        for text in (f"imgcache wall <= {WALL_RATIO}x wget2 wall", "every image of every page and stylesheet local",
                     f"imgcache peak RSS < {RSS_LIMIT_MB} MB"):
            print(f"  {text:48} n/a (imgcache {meta.get('imgcache')})")
    elif ic is None or not ic.ok:
        err = ic.failed[0]["err"] if ic is not None and ic.failed else "no run"
        print(f"  imgcache failed, every target NOT MET: {err[:200]}")
    else:
        text = f"imgcache wall <= {WALL_RATIO}x wget2 wall"
        if wg is None or not wg.ok:
            print(f"  {text:48} n/a (wget2 has no successful run)")
        else:
            r = ic.wall / wg.wall
            print(f"  {text:48} {ic.wall:.3f} s / {wg.wall:.3f} s = {r:.2f}x  (<= {WALL_RATIO:.2f}x)  {verdict(r <= WALL_RATIO)}")
        good = all(r["check_ok"] == "1" for r in ic.runs)
        n, total = refs(next((r["check_msg"] for r in ic.runs if r["check_ok"] != "1"), ic.runs[0]["check_msg"]))
        detail = f"{n}/{total} references" if n is not None else ic.runs[0]["check_msg"][:120]
        print(f"  {'every image of every page and stylesheet local':48} {detail}, in "
              f"{sum(r['check_ok'] == '1' for r in ic.runs)}/{len(ic.runs)} runs  {verdict(good)}")
        print(f"  {f'imgcache peak RSS < {RSS_LIMIT_MB} MB':48} {ic.rss_mb:.1f} MB  {verdict(ic.rss_mb < RSS_LIMIT_MB)}")
        text = "imgcache CPU time <= wget2 CPU time"
        if wg is None or not wg.ok:
            print(f"  {text:48} n/a (wget2 has no successful run)")
        else:
            r = ic.cpu / wg.cpu if wg.cpu else float("inf")
            print(f"  {text:48} {ic.cpu:.2f} s / {wg.cpu:.2f} s = {r:.2f}x  (<= 1.00x)  {verdict(r <= 1.0)}")

    print_relay(meta, "index.html")

    print()
    print("Commands (OUT: a fresh folder each run; SITE_DIR: the site without its images; urls.txt: the "
          f"{meta['pages']} page URLs; base URL https://127.0.0.1:RELAY_PORT/site/):")
    for tool in TOOL_ORDER:
        cmd = meta["cmd"].get(("site", tool))
        if cmd:
            print(f"  {cmd}")
    print_how_timed(meta)


if __name__ == "__main__":
    main()
