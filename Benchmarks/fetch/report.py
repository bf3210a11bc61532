#!/usr/bin/env python3
"""Prints the fetch benchmark's report from the records run.sh wrote. Not meant to be run by hand.

usage: report.py RESULTS.tsv META.tsv

RESULTS.tsv: one line per timed run: setting, tool, out (tmpfs or disk), round, exit status, wall s,
user s, system s, peak RSS KB, requests, connections, protocols (proto:count,...), TLS versions,
statuses, check ok (1/0), check message, error message, relay CPU ticks during the run, phases
(milliseconds a/b/c/d, from nginx's log: start to the first response, to the second, to the last,
last to exit; "-" when unknown).
META.tsv: key, values... (see run.sh, section 7, and common_meta in ../common/bench.sh).

Wall: the best (lowest) of the runs that succeeded. CPU: user + system of the median run (by CPU
time), which moves less with other work on the machine than the best would. Peak RSS: the highest.
Those rules, the Group of runs and what both reports print alike are in ../common/bench_report.py.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_report import print_busy, print_how_timed, print_relay, read_groups, read_meta, verdict  # noqa: E402

FIELDS = ("setting tool out round rc wall user sys rss req conns proto tls status check_ok check_msg err "
          "relay_ticks phases").split()

SETTING_TITLES = {
    "1": "1: HTTP/1.1, loopback",
    "2": "2: HTTPS + h2, loopback",
    "3": "3: HTTPS + h2, +{rtt} ms RTT",
}

TOOL_ORDER = ("imgcache", "imgcache-warm", "imgcache-deny", "wget2", "curl16", "curl100")


def tool_label(tool, setting, meta):
    conc, many = meta["concurrency"]
    https = setting != "1"
    return {
        "imgcache": "imgcache fetch, cold" + (" (--cacert)" if https else ""),
        "imgcache-warm": "imgcache fetch, warm (same folder again)",
        "imgcache-deny": "imgcache fetch, cold, --deny-private-networks --allow-network 127.0.0.1",
        "wget2": f"wget2 -p -k --max-threads={conc}" + (" --http2" if https else ""),
        "curl16": f"curl{' --http2' if https else ''} --parallel-max {conc}",
        "curl100": f"curl --http2 --parallel-max {many}",
    }[tool]


def short_label(tool, meta):
    conc, many = meta["concurrency"]
    return {
        "imgcache": "imgcache fetch, cold",
        "imgcache-warm": "imgcache fetch, warm (setting 1 only)",
        "imgcache-deny": "imgcache fetch, cold, private networks denied (through the address guard)",
        "wget2": f"wget2 -p -k, {conc} threads",
        "curl16": f"curl --parallel-max {conc} (--http2 on https)",
        "curl100": f"curl --http2 --parallel-max {many}",
    }[tool]


def fmt(value, spec, missing="-"):
    return missing if value is None else format(value, spec)


def main():
    results_path, meta_path = sys.argv[1:3]
    meta = read_meta(meta_path)
    groups = read_groups(results_path, FIELDS, ("setting", "tool", "out"))

    images = int(meta["images"])
    settings = meta["settings"].split(",")
    settings = [s for s in "123" if s in settings]
    rtt = 2 * float(meta["latency_ms"])
    rtt_text = f"{rtt:g}"
    titles = {s: SETTING_TITLES[s].format(rtt=rtt_text) for s in settings}
    tools = [t for t in TOOL_ORDER if any(k[1] == t for k in groups)]
    ticks = float(meta["ticks"])
    tmpfs_fs, disk_fs = meta["fs"]["tmpfs"][0], meta["fs"]["disk"][0]

    print()
    print(f"Fetch benchmark: {images} images ({meta['site_mb']} MB, 2-40 KB each, PNG/JPEG/GIF) on one page, "
          f"nginx {meta['nginx']} on 127.0.0.1, {meta['cores']} cores, {meta['elapsed']} s of timed runs")
    print(f"{meta['runs']} run(s) per tool, setting and output folder, each into a fresh folder. wall: the best run "
          "(median: the median run's). CPU: user + system (/usr/bin/time) of the median run by CPU. RSS: the highest peak.")
    print("Outputs on tmpfs (/dev/shm) unless marked 'disk' "
          f"({disk_fs} under {meta['fs']['disk'][1]}). Requests and connections as logged by nginx.")
    print_busy(meta)
    if meta.get("imgcache") != "available":
        print(f"imgcache: pending ({meta.get('imgcache')})")

    # Side by side: the headline (tmpfs) figures of every tool in every setting.
    print()
    print("Side by side (outputs on tmpfs):")
    col = 24
    head1 = f"{'':44}" + "".join(f"  {titles[s]:<{col}}" for s in settings)
    head2 = f"{'tool':44}" + "".join(f"  {'wall s':>7} {'CPU s':>6} {'RSS MB':>8}" for _ in settings)
    print(head1.rstrip())
    print(head2)
    for tool in tools:
        cells = []
        for s in settings:
            g = groups.get((s, tool, "tmpfs"))
            if g is None or not g.runs:
                cells.append(f"  {'-':>7} {'-':>6} {'-':>8}")
            elif not g.ok:
                cells.append(f"  {'FAILED (see below)':<{col}}")
            else:
                cells.append(f"  {g.wall:7.3f} {g.cpu:6.2f} {g.rss_mb:8.1f}")
        print(f"{short_label(tool, meta):44}" + "".join(cells))

    # Per setting: everything, tmpfs and disk.
    for s in settings:
        print()
        extra = ""
        if s == "3":
            extra = f" (latency_relay.{'c' if meta['relay'] == 'c' else 'py'}, {meta['latency_ms']} ms each way)"
        print(f"Setting {titles[s]}{extra}")
        print(f"  {'tool':45} {'out':5} {'wall s':>7} {'median':>7} {'img/s':>6} {'CPU s':>6} {'RSS MB':>7} "
              f"{'requests':>10} {'conns':>5}  {'protocol':18} check")
        for tool in tools:
            for kind in ("tmpfs", "disk"):
                g = groups.get((s, tool, kind))
                if g is None:
                    continue
                label = tool_label(tool, s, meta)
                if not g.ok:
                    err = g.failed[0]["err"] if g.failed else "no run"
                    print(f"  {label:45} {kind:5} FAILED: {err}")
                    continue
                proto = g.protocols()
                tls = g.tls()
                if tls:
                    proto += f" ({tls})"
                req = g.spread("req")
                odd = g.odd_statuses()
                if odd:
                    req += f" ({odd})"
                ips = "-" if tool == "imgcache-warm" else f"{images / g.wall:.0f}"
                relay = ""
                if s == "3":
                    rc = g.relay_cpu(ticks)
                    relay = f"; relay CPU {rc:.2f} s/run" if rc is not None else ""
                fails = f"; {len(g.failed)} run(s) FAILED: {g.failed[0]['err']}" if g.failed else ""
                print(f"  {label:45} {kind:5} {g.wall:7.3f} {g.wall_median:7.3f} {ips:>6} {g.cpu:6.2f} {g.rss_mb:7.1f} "
                      f"{req:>10} {g.spread('conns'):>5}  {proto:18} {g.check(images)}{relay}{fails}")

    # Phases: where a run's wall time goes, by the time nginx wrote each response.
    print()
    print("Where the wall time goes (outputs on tmpfs; median ms of the runs, by the time nginx wrote each response):")
    print(f"  {'setting':24} {'tool':44} {'to 1st':>7} {'1st->2nd':>9} {'2nd->last':>10} {'last->exit':>11}")
    for s in settings:
        for tool in tools:
            g = groups.get((s, tool, "tmpfs"))
            if g is None or not g.ok or tool == "imgcache-warm":
                continue
            medians = g.phases
            if medians is None:
                continue
            print(f"  {titles[s]:24} {short_label(tool, meta):44} {medians[0]:7.0f} {medians[1]:9.0f} "
                  f"{medians[2]:10.0f} {medians[3]:11.0f}")
    print("  (1st: the page, for imgcache and wget2; 2nd: the first image. curl asks for images only.)")

    # Targets.
    print()
    print("Targets (this run's figures, outputs on tmpfs):")

    def get(s, tool):
        g = groups.get((s, tool, "tmpfs"))
        return g if g is not None and g.runs else None

    have_ic = meta.get("imgcache") == "available"

    def ratio_line(s, text, other, limit, what="wall"):
        if s not in settings:
            print(f"  setting {s}: {text:47} n/a (setting not run)")
            return
        ic, ot = get(s, "imgcache"), get(s, other)
        if not have_ic:
            print(f"  setting {s}: {text:47} n/a (imgcache {meta.get('imgcache')})")
        elif ic is None or not ic.ok:
            err = ic.failed[0]["err"] if ic is not None and ic.failed else "no run"
            print(f"  setting {s}: {text:47} NOT MET (imgcache failed: {err[:120]})")
        elif ot is None or not ot.ok:
            print(f"  setting {s}: {text:47} n/a ({other} has no successful run)")
        else:
            a, b = (ic.wall, ot.wall) if what == "wall" else (ic.cpu, ot.cpu)
            r = a / b if b else float("inf")
            unit = "s"
            print(f"  setting {s}: {text:47} {a:.3f} {unit} / {b:.3f} {unit} = {r:.2f}x  (<= {limit:.2f}x)  "
                  f"{verdict(r <= limit)}")

    ratio_line("3", "imgcache wall <= 0.8x wget2 wall", "wget2", 0.8)
    ratio_line("3", f"imgcache wall <= 1.0x curl --parallel-max {meta['concurrency'][1]}", "curl100", 1.0)
    ratio_line("3", "imgcache CPU time <= wget2 CPU time", "wget2", 1.0, what="cpu")
    ratio_line("2", "imgcache wall <= 0.8x wget2 wall", "wget2", 0.8)
    ratio_line("2", "imgcache CPU time <= wget2 CPU time", "wget2", 1.0, what="cpu")
    ratio_line("1", "imgcache wall <= wget2 wall", "wget2", 1.0)
    ratio_line("1", "imgcache CPU time <= wget2 CPU time", "wget2", 1.0, what="cpu")
    if "1" in settings and have_ic:
        ic, warm = get("1", "imgcache"), get("1", "imgcache-warm")
        if ic is not None and ic.ok:
            print(f"  setting 1: {'imgcache peak RSS < 40 MB':47} {ic.rss_mb:.1f} MB  {verdict(ic.rss_mb < 40)}")
        else:
            print(f"  setting 1: {'imgcache peak RSS < 40 MB':47} NOT MET (imgcache failed)")
        if warm is not None and warm.ok:
            print(f"  setting 1: {'warm run < 0.1 s':47} {warm.wall:.3f} s  {verdict(warm.wall < 0.1)}")
            print(f"  setting 1: {'warm run requests no image':47} {warm.spread('req')} request(s)  "
                  f"{verdict(max(int(r['req']) for r in warm.ok) <= 1)}")
        else:
            print(f"  setting 1: {'warm run < 0.1 s':47} NOT MET (no successful warm run)")
        print("  for context, not targets:")
        for s in settings:
            for other in ("wget2", "curl100"):
                ic, ot = get(s, "imgcache"), get(s, other)
                if ic is not None and ic.ok and ot is not None and ot.ok:
                    print(f"    setting {s}: imgcache / {other:8} wall {ic.wall / ot.wall:5.2f}x, CPU {ic.cpu / ot.cpu:5.2f}x")
    elif "1" in settings:
        print(f"  setting 1: imgcache peak RSS < 40 MB, warm run < 0.1 s: n/a (imgcache {meta.get('imgcache')})")

    if "3" in settings:
        print_relay(meta, "about.html")

    print()
    print("Commands (OUT: a fresh folder each run; imgcache's warm run reuses its cold run's OUT; CONFIG: "
          f"{images} url = / output = pairs):")
    for s in settings:
        for tool in tools:
            cmd = meta["cmd"].get((s, tool))
            if cmd:
                print(f"  [{s}] {cmd}")
    print_how_timed(meta)


if __name__ == "__main__":
    main()
