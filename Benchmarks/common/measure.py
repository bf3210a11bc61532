#!/usr/bin/env python3
"""measure.py OUT -- COMMAND...: runs COMMAND (stdout to /dev/null, stderr to OUT.stderr) and writes
"wall user sys peak_kb" to OUT, in seconds to the microsecond.

/usr/bin/time prints hundredths of a second; on a run of 0.3 s that step alone moves a ratio of two
tools by 0.02. The kernel counts the child's CPU time in microseconds (getrusage), and the wall
time is read from a monotonic clock around the child alone. The peak is still /usr/bin/time's %M:
a child started from Python starts as a copy of it, and its own peak would count Python's 10 MB.
Exits with the command's status.
"""
import os
import resource
import subprocess
import sys
import time


def main() -> int:
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        print(__doc__, file=sys.stderr)
        return 64
    out, command = sys.argv[1], sys.argv[3:]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(os.devnull, "wb") as devnull, open(out + ".stderr", "wb") as errors:
        start = time.perf_counter()
        status = subprocess.call(["/usr/bin/time", "-f", "%M", "-o", out + ".rss", *command],
                                 stdout=devnull, stderr=errors)
        wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(out + ".rss") as rss:
        peak_kb = int(rss.read().split()[-1])
    with open(out, "w") as result:
        result.write(f"{wall:.6f} {after.ru_utime - before.ru_utime:.6f} {after.ru_stime - before.ru_stime:.6f} {peak_kb}\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
