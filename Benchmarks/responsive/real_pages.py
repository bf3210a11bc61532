#!/usr/bin/env python3
"""One pass of the responsive benchmark's --real-pages mode: `imgcache fetch` on each saved page through
the catch-all proxy, one page at a time, with the requests and bytes the proxy answered for each.
Run by run.sh; not meant to be run by hand.

usage: real_pages.py --pages DIR --bin IMGCACHE --proxy http://127.0.0.1:PORT --cacert CA.pem
                     --proxy-log LOG --out DIR --case NAME --round N --results TSV
                     [--limit N] [--keep] [--timeout S] [-- DEVICE ARGS...]

DIR/base_urls.json maps each page file (relative to DIR) to the URL it is localised as if served
from. Each page: `IMGCACHE fetch PAGE --base-url URL --out OUT --proxy PROXY --cacert CA.pem --quiet
[DEVICE ARGS]`, with http_proxy, https_proxy, all_proxy and no_proxy removed from its environment
(so that --proxy is the only way out, and no host is exempted from it), timed with wait4 (wall, user,
system, peak RSS); the proxy log's lines added meanwhile are that page's requests (the proxy writes
each line before it sends the body). Appends one line per page to TSV:
case, round, page, responsive (1: the page has a srcset attribute or a <picture>), exit status, wall s,
user s, sys s, peak RSS KB, requests, bytes answered, files written besides the page, its manifest and
hidden files such as the cache's index (count), their bytes.
"""
import argparse
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time

RESPONSIVE = re.compile(rb"(<picture[\s>])|([\s\"'/]srcset\s*=)", re.I)
PAGE_SUFFIXES = (".html", ".htm", ".xhtml", ".css", ".json", ".txt")
PROXY_VARS = ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
              "NO_PROXY")


def output_files(out):
    count = size = 0
    for folder, _, files in os.walk(out):
        for name in files:
            if not name.startswith(".") and not name.lower().endswith(PAGE_SUFFIXES):
                count += 1
                size += os.path.getsize(os.path.join(folder, name))
    return count, size


def main():
    parser = argparse.ArgumentParser()
    for name in ("pages", "bin", "proxy", "cacert", "proxy-log", "out", "case", "round", "results"):
        parser.add_argument(f"--{name}", required=True)
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--keep", action="store_true", help="keep each page's output folder")
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("device", nargs="*")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    with open(os.path.join(args.pages, "base_urls.json"), encoding="utf-8") as f:
        base_urls = json.load(f)
    pages = sorted(base_urls)
    if args.limit:
        pages = pages[:args.limit]
    env = {k: v for k, v in os.environ.items() if k not in PROXY_VARS}
    failed = 0
    rusage_delta()
    with open(args.results, "a", encoding="utf-8") as results:
        for index, page in enumerate(pages):
            path = os.path.join(args.pages, page)
            with open(path, "rb") as f:
                responsive = 1 if RESPONSIVE.search(f.read()) else 0
            out = os.path.join(args.out, f"{args.case}-{args.round}-{index:03d}")
            shutil.rmtree(out, ignore_errors=True)
            cmd = [args.bin, "fetch", path, "--base-url", base_urls[page], "--out", out, "--proxy", args.proxy,
                   "--cacert", args.cacert, "--quiet", *args.device]
            offset = os.path.getsize(args.proxy_log)
            t0 = time.monotonic()
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE, env=env, start_new_session=True)
            CURRENT[0] = proc
            try:
                _, err = proc.communicate(timeout=args.timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                _, err = proc.communicate()
            # communicate() reaped it: its CPU time is RUSAGE_CHILDREN's growth (rusage_delta).
            wall = time.monotonic() - t0
            rc = proc.returncode
            with open(args.proxy_log, "rb") as f:
                f.seek(offset)
                lines = f.read().decode("utf-8", "replace").splitlines()
            requests = len(lines)
            answered = sum(int(line.split("\t")[5]) for line in lines if line.count("\t") >= 7)
            files, size = output_files(out)
            if rc != 0:
                failed += 1
                first = err.decode("utf-8", "replace").strip().splitlines()[:1]
                print(f"  {page}: exit {rc}: {first[0][:200] if first else ''}", file=sys.stderr)
            results.write("\t".join(map(str, (args.case, args.round, page, responsive, rc, f"{wall:.3f}",
                                              *rusage_delta(), requests, answered, files, size))) + "\n")
            if not args.keep:
                shutil.rmtree(out, ignore_errors=True)
    print(f"  {args.case} round {args.round}: {len(pages)} pages, {failed} with a non-zero exit", file=sys.stderr)


_last = None
CURRENT = [None]    # the fetch under way, stopped with this script


def stop(signum, _frame):
    proc = CURRENT[0]
    if proc is not None and proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    sys.exit(128 + signum)


def rusage_delta():
    """User s, system s of the children reaped since the last call; the peak RSS KB of the largest child so far."""
    global _last
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    before = _last or (0.0, 0.0)
    _last = (now.ru_utime, now.ru_stime)
    return f"{now.ru_utime - before[0]:.3f}", f"{now.ru_stime - before[1]:.3f}", now.ru_maxrss


if __name__ == "__main__":
    main()
