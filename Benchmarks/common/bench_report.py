"""What Benchmarks/fetch/report.py and Benchmarks/site/report.py share: reading the records run.sh wrote
(see Benchmarks/common/bench.sh), the runs of one tool as a Group, and the lines both reports print
alike. Imported by them; not meant to be run.

Wall: the best (lowest) of the runs that succeeded. CPU: user + system of the median run (by CPU
time), which moves less with other work on the machine than the best would. Peak RSS: the highest.
"""
import collections
import statistics


def read_meta(path):
    meta = {"sanity": [], "cmd": {}, "fs": {}}
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            key, values = parts[0], parts[1:]
            if key == "sanity":
                meta["sanity"].append(values[0])
            elif key == "cmd":
                meta["cmd"][(values[0], values[1])] = values[2]
            elif key == "fs":
                meta["fs"][values[0]] = values[1:]
            else:
                meta[key] = values if len(values) > 1 else (values[0] if values else "")
    return meta


def read_groups(path, fields, by):
    """RESULTS.tsv, one line of FIELDS per timed run (those a line lacks are ''), as a Group per
    tuple of the values of the fields BY: {("imgcache", "tmpfs"): Group, ...}."""
    runs = collections.defaultdict(list)
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            parts += [""] * (len(fields) - len(parts))
            r = dict(zip(fields, parts))
            runs[tuple(r[field] for field in by)].append(r)
    return {k: Group(v) for k, v in runs.items()}


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def lower_median(values):
    """The middle value (the lower of the two middle ones for an even count); None for none."""
    values = sorted(values)
    return values[(len(values) - 1) // 2] if values else None


class Group:
    """The runs of one tool (in one setting) with one kind of output folder."""

    def __init__(self, runs):
        self.runs = runs
        self.ok = [r for r in runs if r["rc"] == "0"]
        self.failed = [r for r in runs if r["rc"] != "0"]

    @property
    def wall(self):
        return min(float(r["wall"]) for r in self.ok) if self.ok else None

    @property
    def wall_median(self):
        return lower_median(float(r["wall"]) for r in self.ok)

    @property
    def cpu(self):
        """user + system of the median run (the lower median for an even count)."""
        return lower_median((number(r["user"]) or 0) + (number(r["sys"]) or 0) for r in self.ok
                            if number(r["user"]) is not None)

    @property
    def phases(self):
        """The median of each of the four wall-time phases (ms) over the runs whose log gave them
        (the fetch benchmark's `phases` field, a/b/c/d); None when none did."""
        split = [r["phases"].split("/") for r in self.ok if r.get("phases", "-").count("/") == 3]
        return [lower_median(float(p[i]) for p in split) for i in range(4)] if split else None

    @property
    def rss_mb(self):
        values = [number(r["rss"]) for r in self.ok if number(r["rss"]) is not None]
        return max(values) / 1024 if values else None

    def spread(self, field):
        values = sorted({int(r[field]) for r in self.ok})
        if not values:
            return "-"
        return str(values[0]) if len(values) == 1 else f"{values[0]}-{values[-1]}"

    def protocols(self):
        counts = collections.Counter()
        for r in self.ok:
            for item in r["proto"].split(","):
                if ":" in item:
                    name, n = item.rsplit(":", 1)
                    counts[name] += int(n)
        names = {"HTTP/2.0": "h2", "HTTP/1.1": "http/1.1", "HTTP/1.0": "http/1.0"}
        if not counts:
            return "-"
        if len(counts) == 1:
            return names.get(next(iter(counts)), next(iter(counts)))
        total = sum(counts.values())
        return " + ".join(f"{names.get(k, k)} {100 * v / total:.0f}%" for k, v in counts.most_common())

    def tls(self):
        versions = set()
        for r in self.ok:
            for item in r["tls"].split(","):
                if ":" in item:
                    versions.add(item.rsplit(":", 1)[0].replace("TLSv", "TLS "))
        return "/".join(sorted(versions))

    def odd_statuses(self):
        """Statuses other than 200, per run (the first run's), e.g. '1x404'."""
        if not self.ok:
            return ""
        out = []
        for item in self.ok[0]["status"].split(","):
            if ":" in item:
                code, n = item.rsplit(":", 1)
                if code != "200":
                    out.append(f"{n}x{code}")
        return " ".join(out)

    def check(self, images):
        if not self.runs:
            return "-"
        good = sum(1 for r in self.runs if r["check_ok"] == "1")
        if good == len(self.runs):
            return f"{images}/{images} ok ({good}/{len(self.runs)} runs)"
        bad = next(r for r in self.runs if r["check_ok"] != "1")
        return f"INCOMPLETE in {len(self.runs) - good}/{len(self.runs)} runs: {bad['check_msg'][:90]}"

    def relay_cpu(self, ticks):
        values = [int(r["relay_ticks"]) for r in self.ok if r["relay_ticks"].lstrip("-").isdigit()]
        return statistics.mean(values) / ticks if values else None


def verdict(ok):
    return "MET" if ok else "NOT MET"


def print_busy(meta):
    """The CPU share other work took before and after the runs, with a warning when it skews them."""
    busy_before, busy_after = (int(x) for x in meta["busy"])
    warn = ""
    if busy_before > 10 or busy_after > 10:
        warn = "   WARNING: other work was running on this machine; the figures are skewed by it"
    print(f"CPU busy with other work, in an idle second before/after the runs: {busy_before}% / {busy_after}%{warn}")


def print_relay(meta, page):
    """The relay's sanity lines: PAGE by a fresh curl with and without it, and its own summary."""
    print()
    print(f"Latency relay ({'latency_relay.c' if meta['relay'] == 'c' else 'latency_relay.py'}, "
          f"{meta['latency_ms']} ms each way), {page} by a fresh curl, best of 3:")
    for line in meta["sanity"]:
        print(f"  {line}")
    if meta.get("relay_stats"):
        print(f"  {meta['relay_stats']}")


def print_how_timed(meta):
    print(f"  each run as: timeout {meta['tool_timeout']} /usr/bin/time -f '%e %U %S %M' COMMAND; "
          "wall from date +%s%N around it")
