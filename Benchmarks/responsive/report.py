#!/usr/bin/env python3
"""Prints the responsive benchmark's report from the records run.sh wrote. Not meant to be run by hand.

usage: report.py RESULTS.tsv META.tsv

META.tsv's `mode` says which records RESULTS.tsv holds:
- generated: one line per timed run: case, round, exit status, wall s, user s, system s, peak RSS KB,
  requests, body bytes sent, image requests (/site/img/), their bytes, files written (not pages,
  manifests or lists), their bytes, connections, protocols, statuses, error;
- real: one line per page and run (real_pages.py): case, round, page, responsive, exit status, wall s,
  user s, sys s, peak RSS KB, requests, bytes answered, files written, their bytes.
Counts (requests, bytes) come from each case's first run; wall time is the best run's (the sum over
the pages with --real-pages), CPU time (user + system) the median run's, peak RSS the highest.
Device rows of a build without --device read "n/a: this build has no --device".
"""
import collections
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_report import lower_median, read_meta  # noqa: E402

CASES = ("none", "phone", "desktop", "three", "wget2")
LABELS = {"none": "imgcache, no profile", "phone": "imgcache, phone 390x844@3",
          "desktop": "imgcache, desktop 1280x800@1",
          "three": "imgcache, 3 devices (+ 820x1180@2)", "wget2": "wget2 -p -k"}
NA_DEVICE = "n/a: this build has no --device"
BYTES_TARGET = 0.4      # bytes per device on the generated site, × no profile
REQUESTS_TARGET = 0.6   # requests per device on real pages with responsive images, × no profile
GEN_FIELDS = ("case round rc wall user sys rss req bytes img_req img_bytes files file_bytes conns proto status "
              "err").split()
REAL_FIELDS = "case round page responsive rc wall user sys rss req bytes files file_bytes".split()


def read(path, fields):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            rows.append(dict(zip(fields, parts + [""] * (len(fields) - len(parts)))))
    return rows


def f(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def mb(n):
    return f"{n / 1e6:.2f}"


def table(header, rows):
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    line = lambda r: "| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |"  # noqa: E731
    print(line(header))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(line(r))


def missing(case, meta):
    if case == "wget2" and meta.get("wget2") != "available":
        return f"not run: wget2 {meta.get('wget2')}"
    if case != "wget2" and meta.get("imgcache") != "available":
        return f"not run: {meta.get('imgcache')}"
    if case not in ("none", "wget2") and meta.get("have_device") != "1":
        return NA_DEVICE
    return "no run"


def verdict(ratio, target):
    if ratio is None:
        return "n/a"
    return f"{ratio:.2f}x ({'MET' if ratio <= target else 'NOT MET'}, target <= {target}x)"


def generated(rows, meta):
    pages = int(meta["pages"])
    by = collections.defaultdict(list)
    for r in rows:
        by[r["case"]].append(r)
    print(f"\nResponsive benchmark, generated site: {meta.get('site', '')}")
    print(f"nginx {meta.get('nginx')} over HTTPS + HTTP/2 behind the {meta.get('relay')} latency relay, "
          f"{meta.get('latency_ms')} ms each way; {meta.get('runs')} run(s) per case; imgcache: {meta.get('bin') or '-'}")
    expected = {}
    if meta.get("expected") and os.path.exists(meta["expected"]):
        with open(meta["expected"], encoding="utf-8") as fh:
            expected = json.load(fh)
    header = ["case", "img requests/page", "requests (all)", "MB/page sent", "MB/page on disk", "bytes vs no profile",
              "wall s (best)", "CPU s (median)", "peak RSS MB", "browser: img/page, MB/page"]
    out = []
    base_bytes = None
    summary = {}
    for case in CASES:
        runs = by.get(case)
        shows = expected.get("all candidates" if case in ("none", "wget2") else case)
        shows = f"{shows['images'] / pages:.1f}, {mb(shows['bytes'] / pages)}" if shows else "-"
        if not runs:
            out.append([LABELS[case], missing(case, meta)] + [""] * (len(header) - 3) + [shows])
            continue
        first = runs[0]
        ok = [r for r in runs if r["rc"] == "0"] or runs
        img_bytes = int(first["img_bytes"])
        if case == "none":
            base_bytes = img_bytes
        ratio = img_bytes / base_bytes if base_bytes else None
        summary[case] = ratio
        cpu = lower_median([f(r["user"]) + f(r["sys"]) for r in ok if f(r["user"]) is not None])
        rss = max((f(r["rss"]) or 0) for r in runs) / 1024
        note = "" if first["rc"] == "0" else f" (exit {first['rc']})"
        out.append([LABELS[case] + note, f"{int(first['img_req']) / pages:.1f}", first["req"],
                    mb(img_bytes / pages), mb(int(first["file_bytes"]) / pages),
                    f"{ratio:.2f}" if ratio is not None else "-",
                    f"{min(f(r['wall']) for r in ok):.2f}", f"{cpu:.2f}" if cpu is not None else "-", f"{rss:.0f}", shows])
    print()
    table(header, out)
    counts = {c: {(r["img_req"], r["img_bytes"]) for r in by[c]} for c in by}
    for c, seen in counts.items():
        if len(seen) > 1:
            print(f"note: {LABELS[c]}: the runs' image requests/bytes differ: {sorted(seen)}")
    print("\nimg requests/page and MB/page sent: requests for /site/img/ and their body bytes in nginx's access log, "
          f"over the {pages} pages; requests (all) also counts wget2's pages and robots.txt. MB/page on disk: the "
          "image files in the output folder.")
    if expected:
        print("browser: what a browser at that device shows (make_site.py's browser_pick: the first <source> whose "
              "type and media match, then the first candidate at or above the device pixel ratio; the union over "
              "the devices), or for the no-profile and wget2 rows every candidate, over the site's distinct images.")
    print("\nTarget (issue 51): bytes per device <= 0.4x no profile on the generated site")
    for case in ("phone", "desktop", "three"):
        ideal = ""
        if case in expected and "all candidates" in expected:
            ideal = (f"   [a browser's picks: {expected[case]['bytes'] / expected['all candidates']['bytes']:.2f}x "
                     "every candidate's bytes]")
        print(f"  {LABELS[case]}: {verdict(summary.get(case), BYTES_TARGET) if case in summary else missing(case, meta)}"
              + ideal)
    tail(meta)


def real(rows, meta):
    by = collections.defaultdict(lambda: collections.defaultdict(list))   # case → round → rows
    for r in rows:
        by[r["case"]][r["round"]].append(r)
    any_case = next(iter(by.values()), {})
    first_round = next(iter(any_case.values()), [])
    pages = len(first_round)
    responsive = sum(1 for r in first_round if r["responsive"] == "1")
    print(f"\nResponsive benchmark, real pages: {meta.get('pages_dir')} ({pages} pages"
          f"{', first ' + meta['limit'] + ' only' if meta.get('limit') not in ('', '0', None) else ''}; "
          f"{responsive} with responsive images: a srcset attribute or a <picture>)")
    print(f"through catchall_proxy.py on 127.0.0.1 (no latency); {meta.get('runs')} run(s) per case; "
          f"imgcache: {meta.get('bin') or '-'}")
    header = ["case", "requests (all pages)", "MB sent (all)", "MB on disk (all)", "requests/page (responsive)",
              "MB/page sent (responsive)", "requests vs no profile (responsive)", "exit != 0",
              "wall s (sum, best)", "CPU s (sum, median)"]
    out = []
    base = None
    summary = {}
    for case in CASES:
        if case == "wget2":
            continue
        rounds = by.get(case)
        if not rounds:
            out.append([LABELS[case], missing(case, meta)] + [""] * (len(header) - 2))
            continue
        first = next(iter(rounds.values()))
        resp = [r for r in first if r["responsive"] == "1"]
        req_resp = sum(int(r["req"]) for r in resp)
        if case == "none":
            base = req_resp
        ratio = req_resp / base if base else None
        summary[case] = ratio
        walls = [sum(f(r["wall"]) for r in rs) for rs in rounds.values()]
        cpus = [sum(f(r["user"]) + f(r["sys"]) for r in rs) for rs in rounds.values()]
        failed = sum(1 for r in first if r["rc"] != "0")
        out.append([LABELS[case], sum(int(r["req"]) for r in first), mb(sum(int(r["bytes"]) for r in first)),
                    mb(sum(int(r["file_bytes"]) for r in first)),
                    f"{req_resp / len(resp):.1f}" if resp else "-",
                    mb(sum(int(r["bytes"]) for r in resp) / len(resp)) if resp else "-",
                    f"{ratio:.2f}" if ratio is not None else "-", failed,
                    f"{min(walls):.1f}", f"{lower_median(cpus):.1f}"])
    print()
    table(header, out)
    print("\nrequests and MB sent: what the proxy answered (its log); MB on disk: the files imgcache wrote besides "
          "the page. exit != 0: pages whose fetch exited non-zero (2: some image not localised), first run.")
    if meta.get("proxy_stats"):
        print(f"proxy: {meta['proxy_stats']} (all cases and runs)")
    print("\nTarget (issue 51): requests per device <= 0.6x no profile on real pages with responsive images")
    for case in ("phone", "desktop", "three"):
        print(f"  {LABELS[case]}: {verdict(summary.get(case), REQUESTS_TARGET) if case in summary else missing(case, meta)}")
    tail(meta)


def tail(meta):
    busy = meta.get("busy") or ["?", "?"]
    print(f"\nCPUs busy with other work: {busy[0]}% before, {busy[1]}% after ({meta.get('cores')} cores); "
          f"{meta.get('elapsed')} s for all runs")
    if any(str(b).isdigit() and int(b) > 10 for b in busy):
        print("WARNING: the machine was busy: wall and CPU times are skewed (counts are not)")
    for line in meta.get("sanity", []):
        print(f"relay: {line}")
    for (mode, case), cmd in sorted(meta.get("cmd", {}).items()):
        print(f"command ({case}): {cmd}")


def main():
    results, meta_path = sys.argv[1:3]
    meta = read_meta(meta_path)
    if meta.get("mode") == "real":
        real(read(results, REAL_FIELDS), meta)
    else:
        generated(read(results, GEN_FIELDS), meta)


if __name__ == "__main__":
    main()
