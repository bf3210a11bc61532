#!/usr/bin/env python3
"""Medians of results/results.tsv (bench.sh): per step and engine, wall, CPU (user+sys) and peak RSS,
with the spread of the walls (min-max) and GRDB's ratios to the hand-built store at the same level.
usage: report.py [results.tsv]"""
import csv, statistics, sys
path = sys.argv[1] if len(sys.argv) > 1 else "results/results.tsv"
rows = [r for r in csv.DictReader(open(path), delimiter="\t")]
bad = [r for r in rows if r["rc"] != "0"]
data = {}
for r in rows:
    if r["rc"] != "0":
        continue
    data.setdefault((r["step"], r["engine"]), []).append((float(r["wall"]), float(r["user"]) + float(r["sys"]), int(r["rss_kb"]) / 1024))
steps = ["populate", "stats", "stats-sql", "warm", "warm-uses", "evict-steady", "evict-half", "rm-rf", "cold-10k"]
names = {"populate": "fill 100,000 entries", "stats": "stats (files checked)", "stats-sql": "stats (index only)",
         "warm": "warm page, 2,000 lookups", "warm-uses": "  same, 2,000 uses recorded", "evict-steady": "2,000 new at the cap",
         "evict-half": "1 new, cap halved", "rm-rf": "rm -rf of what is left", "cold-10k": "cold, 10,000 images 2-40 KB"}
med = lambda xs: statistics.median(xs)
print(f"{'step':30} {'engine':6} {'n':>2} {'wall s':>8} {'(min-max)':>15} {'CPU s':>7} {'RSS MB':>7}   grdb/store wall, CPU, RSS")
for s in steps:
    for e in ["cli", "store", "grdb", "grdb32"]:
        v = data.get((s, e))
        if not v:
            continue
        w, c, m = med([x[0] for x in v]), med([x[1] for x in v]), med([x[2] for x in v])
        ratio = ""
        if e.startswith("grdb") and (s, "store") in data:
            sv = data[(s, "store")]
            sw, sc, sm = med([x[0] for x in sv]), med([x[1] for x in sv]), med([x[2] for x in sv])
            ratio = f"   {w / sw if sw else float('nan'):5.2f}x {c / sc if sc else float('nan'):5.2f}x {m / sm:5.2f}x"
        lo, hi = min(x[0] for x in v), max(x[0] for x in v)
        print(f"{names[s]:30} {e:6} {len(v):>2} {w:8.3f} {f'({lo:.3f}-{hi:.3f})':>15} {c:7.3f} {m:7.1f}{ratio}")
if bad:
    print(f"\n{len(bad)} failed runs:", *[f"  {r['engine']} {r['step']} r{r['round']} rc={r['rc']}: {r['output']}" for r in bad], sep="\n")
