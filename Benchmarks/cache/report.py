#!/usr/bin/env python3
"""Prints the cache benchmark's report from the records run.sh wrote. Not meant to be run by hand.

usage: report.py RESULTS.tsv META.tsv

RESULTS.tsv: one line per timed run, with the fields META.tsv's `fields` record names: where the
cache was (tmpfs or disk), the step, the run, exit status, wall s, user s, system s, peak RSS KB,
requests, statuses, check ok (1/0), check message, error message, the index's length in bytes.

Wall: the best (lowest) of the runs that succeeded. CPU: user + system of the median run (by CPU
time). Peak RSS: the highest. The same rules as the other benchmarks (../common/bench_report.py).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_report import print_busy, read_groups, read_meta, verdict  # noqa: E402

# step: (what it is, the target: ("wall", seconds) or ("rss", MB))
STEPS = {
    "populate": ("fill the cache: fetch the site, N images", None),
    "stats": ("imgcache cache stats", ("wall", 1.0)),
    "warm": ("warm fetch, 2,000-image page", ("wall", 0.1)),
    "warm-long-index": ("  the same, index just short of compacting", ("wall", 0.1)),
    "revalidate-1": ("revalidate 1 image (no compaction)", None),
    "compaction": ("revalidate 1 image, index compacts", ("wall", 1.0)),
    "evict-steady": ("2,000 new images, cap = cache size", ("wall", 1.0)),
    "evict-half": ("1 new image, cap = half the cache", ("wall", 1.0)),
    "rm-rf": ("  for scale: rm -rf of the rest of the folder", None),
    "cold-10k": ("cold fetch, 10,000-image page", ("rss", 60.0)),
}


def cell(group):
    if group is None or not group.runs:
        return f"{'-':>7} {'-':>6} {'-':>7}"
    if not group.ok:
        return f"{'FAILED':>22}"
    return f"{group.wall:7.3f} {group.cpu:6.2f} {group.rss_mb:7.1f}"


def met(group, target):
    if group is None or not group.ok or target is None:
        return None
    kind, limit = target
    value = group.wall if kind == "wall" else group.rss_mb
    return value < limit


def main():
    results, meta_path = sys.argv[1:3]
    meta = read_meta(meta_path)
    fields = meta["fields"]
    groups = read_groups(results, fields, ("kind", "step"))
    kinds = [k for k in ("tmpfs", "disk") if any(key[0] == k for key in groups)]
    entries = int(meta["entries"])

    print()
    print(f"imgcache cache benchmark: one cache folder of {entries:,} images (0.5-4 KB), filled by imgcache fetch "
          f"from nginx {meta['nginx']} on 127.0.0.1; {meta['runs']} runs of each repeated step")
    for kind in kinds:
        fs_type, path = meta["fs"][kind]
        print(f"  {kind}: {path} ({fs_type})")
    print_busy(meta)
    print()
    header = f"{'step':<44}" + "".join(f"   {kind + ': wall s   CPU s  RSS MB':<30}" for kind in kinds) + "target"
    print(header)
    verdicts = []
    for step, (title, target) in STEPS.items():
        row = [groups.get((kind, step)) for kind in kinds]
        if all(g is None for g in row):
            continue
        title = title.replace("N images", f"{entries:,} images")
        line = f"{title:<44}" + "".join(f"   {cell(g):<30}" for g in row)
        if target:
            kind, limit = target
            line += f"{'under' if kind == 'wall' else 'peak under'} {limit:g} {'s' if kind == 'wall' else 'MB'}"
            results_met = [met(g, target) for g in row if g is not None and g.ok]
            if results_met:
                verdicts.append((title.strip(), all(results_met)))
                line += f"  {verdict(all(results_met))}"
        print(line)

    print()
    print("Index length before each step (bytes), and what the checks found:")
    for step in STEPS:
        for kind in kinds:
            group = groups.get((kind, step))
            if group is None:
                continue
            last = group.runs[-1]
            status = "ok" if all(r["check_ok"] == "1" for r in group.runs) else "CHECK FAILED"
            print(f"  {step:<16} {kind:<6} index {last['index_bytes']:>11}  {status}: {last['check_msg'][:150]}")
            for r in group.failed:
                print(f"      run {r['round']}: {r['error']}")
    print()
    print("Targets:", ", ".join(f"{name}: {verdict(ok)}" for name, ok in verdicts))
    print(f"  each run as: timeout {meta['tool_timeout']} /usr/bin/time -f '%e %U %S %M' COMMAND; "
          f"{meta['elapsed']} s in all")


if __name__ == "__main__":
    main()
