#!/usr/bin/env python3
"""Compares builds of imgcache on the warm fetch of one page, run in turn so that they share the
machine's drift: the check that a change kept a short run's time.

usage: Benchmarks/compare/interleaved_warm_fetch.py [--rounds 150] [--images 2000] NAME=BIN [NAME=BIN ...]

Makes the fetch benchmark's site (fetch/make_site.py: one page of --images images), serves it
with `python3 -m http.server` on 127.0.0.1, fills a cache folder per build on tmpfs with one
fetch, then runs `BIN fetch PAGE_URL --out OUT --quiet` once per build per round, the order
reversed every other round, and `curl -s PAGE_URL` in each round as a gauge of the machine's own
drift. Every image is cached, so a run is start-up, the page's request, its parse, the cache's
answers, the rewrite and the manifest.

Prints per build: least, first quartile, median and mean wall time, and the median CPU time
(user + system, with its child processes); then each build's median as a ratio to the first
build's. Wall times on a shared 2-core machine move by 15-30% within minutes, which is why the
builds take turns; a difference under about 2% between medians of 150 rounds is noise here.
"""
import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url, seconds=10):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if subprocess.run(["curl", "-sf", "-o", "/dev/null", url]).returncode == 0:
            return
        time.sleep(0.1)
    sys.exit(f"the server at {url} did not answer")


def timed(command, cwd):
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        sys.exit(f"{' '.join(command)} failed (status {status})")
    return wall, usage.ru_utime + usage.ru_stime


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=150)
    parser.add_argument("--images", type=int, default=2000)
    parser.add_argument("builds", nargs="+", help="NAME=BIN")
    args = parser.parse_args()
    builds = []
    for build in args.builds:
        name, _, binary = build.partition("=")
        if not binary or not os.access(binary, os.X_OK):
            sys.exit(f"not NAME=BIN with an executable BIN: {build}")
        builds.append((name, os.path.abspath(binary)))

    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
    work = tempfile.mkdtemp(prefix="imgcache-warm-ab.", dir=shm)
    server = None
    try:
        root = os.path.join(work, "www")
        subprocess.run([sys.executable, os.path.join(HERE, "..", "fetch", "make_site.py"), root,
                        "--images", str(args.images)], check=True, stdout=subprocess.DEVNULL)
        port = free_port()
        server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                                   "--directory", root], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        page = f"http://127.0.0.1:{port}/index.html"
        wait_for(page)
        folders = {}
        for name, binary in builds:
            folders[name] = os.path.join(work, "run-" + name)
            os.makedirs(folders[name])
            timed([binary, "fetch", page, "--out", "out", "--quiet"], folders[name])
        walls = {name: [] for name, _ in builds + [("curl", None)]}
        cpus = {name: [] for name in walls}
        for round in range(args.rounds):
            order = builds if round % 2 == 0 else builds[::-1]
            for name, binary in order:
                wall, cpu = timed([binary, "fetch", page, "--out", "out", "--quiet"], folders[name])
                walls[name].append(wall)
                cpus[name].append(cpu)
            wall, cpu = timed(["curl", "-s", "-o", "/dev/null", page], work)
            walls["curl"].append(wall)
            cpus["curl"].append(cpu)
        first = statistics.median(walls[builds[0][0]])
        print(f"{args.rounds} rounds, {args.images} images cached; wall least / q1 / median / mean, median CPU (s)")
        for name in walls:
            times = sorted(walls[name])
            line = (f"{name:<16} {times[0]:.4f} / {times[len(times) // 4]:.4f} / {statistics.median(times):.4f}"
                    f" / {statistics.mean(times):.4f}   CPU {statistics.median(cpus[name]):.4f}")
            if name != "curl":
                line += f"   median {statistics.median(times) / first:.3f}x {builds[0][0]}"
            print(line)
    finally:
        if server:
            server.terminate()
            server.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
