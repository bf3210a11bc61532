#!/usr/bin/env python3
"""Runs a command and prints `wall user sys maxrss_kb rc` on stderr's last line to FILE: the same
getrusage figures GNU time -v reports (it also reads them from wait4), to the microsecond rather
than its 10 ms. usage: measure.py FILE command..."""
import os, subprocess, sys, time
out = sys.argv[1]
start = time.perf_counter()
p = subprocess.Popen(sys.argv[2:])
_, status, ru = os.wait4(p.pid, 0)
wall = time.perf_counter() - start
rc = os.waitstatus_to_exitcode(status)
with open(out, "w") as f:
    f.write(f"{wall:.6f} {ru.ru_utime:.6f} {ru.ru_stime:.6f} {ru.ru_maxrss} {rc}\n")
sys.exit(rc if rc >= 0 else 128 - rc)
