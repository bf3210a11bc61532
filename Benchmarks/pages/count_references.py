#!/usr/bin/env python3
"""How many image references of the real saved pages imgcache localises, with and without
--extensions-only: the figure for images whose URL names no format (no extension, or .php & co).

usage: python3 Benchmarks/pages/count_references.py [IMGCACHE_BINARY] [PAGES_FOLDER]
  defaults: .build/debug/imgcache and ../shared/pages (MANIFEST.tsv gives each page's URL and charset)

A reference counts as localised when `imgcache list --json` marks it rewritten (its URL names an
enabled image format) or awaiting-type (its URL names none, in a place where the markup says it is
an image: `fetch` downloads it and names it by its bytes). Counting only: nothing is downloaded,
so how many of the awaiting ones really are images is not known here.
"""
import csv
import json
import os
import subprocess
import sys
from collections import Counter


def list_references(binary, page, url, charset, strict):
    command = [binary, "list", page, "--json"]
    if url:
        command += ["--base-url", url]
    if charset:
        command += ["--charset", charset]
    if strict:
        command.append("--extensions-only")
    result = subprocess.run(command, capture_output=True, timeout=120)
    if result.returncode != 0:
        return None
    return json.loads(result.stdout)


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else ".build/debug/imgcache"
    folder = sys.argv[2] if len(sys.argv) > 2 else os.path.join("..", "shared", "pages")
    manifest = os.path.join(folder, "MANIFEST.tsv")
    if not os.path.exists(manifest):
        sys.exit(f"no {manifest}: give the pages folder as the second argument")
    totals = {False: Counter(), True: Counter()}
    pages = unreadable = 0
    with open(manifest, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            page = os.path.join(folder, row["file"])
            if not os.path.exists(page):
                continue
            pages += 1
            for strict in (False, True):
                references = list_references(binary, page, row.get("page_url") or "", row.get("declared_charset") or "", strict)
                if references is None:
                    unreadable += 1
                    continue
                counts = totals[strict]
                for reference in references:
                    counts["references"] += 1
                    if reference.get("rewritten"):
                        counts["rewritten"] += 1
                    elif reference.get("skipReason") == "awaiting-type":
                        counts["awaiting-type"] += 1
                    else:
                        counts["skip:" + str(reference.get("skipReason"))] += 1
    print(f"{pages} pages from {manifest}" + (f" ({unreadable} list runs failed)" if unreadable else ""))
    for strict in (True, False):
        counts = totals[strict]
        localised = counts["rewritten"] + counts["awaiting-type"]
        label = "--extensions-only (before)" if strict else "default (after)"
        print(f"  {label:28} {counts['references']:6} image references, {localised:6} localised "
              f"({counts['rewritten']} by extension, {counts['awaiting-type']} named by their bytes), "
              f"{counts['references'] - localised} left remote")
    after = totals[False]
    reasons = sorted(((key, value) for key, value in after.items() if key.startswith("skip:")), key=lambda item: -item[1])
    print("  left remote by default, by reason: " + ", ".join(f"{key[5:]} {value}" for key, value in reasons))


if __name__ == "__main__":
    main()
