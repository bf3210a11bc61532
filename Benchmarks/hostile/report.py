#!/usr/bin/env python3
"""Prints the table of Benchmarks/hostile/run.sh from its results.tsv.

usage: report.py RESULTS_TSV GOOD_COUNT TIMEOUT

Each row of RESULTS_TSV: label, exit status, wall seconds, peak RSS (KB), images cached,
temporary files left, run folder (holding stderr and the hostile server's stats.json).
Several rows with one label (--runs N): the median wall time and the highest peak are shown.
"""

import json
import os
import re
import statistics
import sys


def main(path, good, timeout):
    good, timeout = int(good), float(timeout)
    runs = {}
    order = []
    for line in open(path):
        label, status, wall, rss, cached, leftovers, folder = line.rstrip("\n").split("\t")
        if label not in runs:
            order.append(label)
        runs.setdefault(label, []).append(
            dict(status=int(status), wall=float(wall), rss=int(rss), cached=int(cached), leftovers=int(leftovers), folder=folder)
        )
    baseline = max(r["rss"] for r in runs["good only"])
    print(f"imgcache fetch, {good} good images (+ the hostile ones), --timeout {timeout:g}")
    print(f"{'case':<38} {'exit':>4} {'wall s':>7} {'busy s':>7} {'peak MB':>8} {'vs good':>8} {'cached':>7}  reason(s)")
    problems = []
    for label in order:
        rows = runs[label]
        last = rows[-1]
        wall = statistics.median(r["wall"] for r in rows)
        peak = max(r["rss"] for r in rows)
        stderr = open(os.path.join(last["folder"], "stderr")).read()
        reasons = sorted({m.group(2) for m in re.finditer(r"^imgcache: failed: (\S+): (.*)$", stderr, re.M)})
        failures = len(re.findall(r"^imgcache: failed: ", stderr, re.M))
        stats = json.load(open(os.path.join(last["folder"], "stats.json")))
        busy = max((s["seconds"] for p, s in stats.items() if not p.startswith("/good/")), default=0.0)
        cached = f"{last['cached']}/{good}"
        print(f"{label:<38} {last['status']:>4} {wall:>7.2f} {busy:>7.2f} {peak / 1024:>8.1f} {(peak - baseline) / 1024:>+8.1f} {cached:>7}  "
              + (" | ".join(r[:90] for r in reasons) if reasons else "-"))
        if last["cached"] != good:
            problems.append(f"{label}: {last['cached']} of {good} good images cached")
        if last["leftovers"]:
            problems.append(f"{label}: {last['leftovers']} temporary files left in the cache")
        if label != "good only" and failures == 0:
            problems.append(f"{label}: no failure reported")
        if wall > timeout + 5:
            problems.append(f"{label}: the run took {wall:.1f} s with --timeout {timeout:g}")
    redirects = [s for r in runs.get("redirect to itself", []) for p, s in json.load(open(os.path.join(r["folder"], "stats.json"))).items()
                 if p == "/h/redirect-self.png"]
    if redirects:
        print(f"\nredirect to itself: {redirects[-1]['requests']} requests reached the server (http and https together)")
    print("\nwall s: the whole run; busy s: the longest a hostile URL kept the server busy (first request to")
    print("last connection's end); peak MB: maximum resident set size; vs good: its difference to the good-only run.")
    if problems:
        print("\nPROBLEMS:\n  " + "\n  ".join(problems))
        sys.exit(1)


if __name__ == "__main__":
    main(*sys.argv[1:4])
