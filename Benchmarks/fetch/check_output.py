#!/usr/bin/env python3
"""Checks a downloaded copy of the benchmark site against the generator's manifest.

usage: check_output.py WEB_ROOT --page PAGE_OR_DIR   (a rewritten page: are its images local and present?)
       check_output.py WEB_ROOT --files DIR          (a folder of downloads: which images are there?)

--page: reads the page (or the one .html page found under DIR: index.html first), takes every image
reference (img src and srcset, source srcset, CSS url() in style attributes and <style>), resolves
the relative ones against the page's folder, and counts how many of the site's images are referenced
through a local file that exists with the original bytes. Remote references (http:, https:, //) count
as not local, and are counted by scheme in the summary (a client that left the https:// references of
settings 2 and 3 alone shows up as "https: N"). --files: counts the site's images found anywhere under
DIR, by content.

Prints one summary line starting with "N/TOTAL"; exits 0 when all TOTAL images are accounted for.
"""
import argparse
import collections
import hashlib
import html.parser
import json
import os
import re
import sys
import urllib.parse

CSS_URL = re.compile(r"""url\(\s*(?:"([^"]*)"|'([^']*)'|([^)'"\s]*))\s*\)""", re.I)


def css_urls(text):
    return [a or b or c for a, b, c in CSS_URL.findall(text)]


def srcset_urls(value):
    # The generated page's srcset URLs contain no commas, so a plain split is exact here.
    return [part.split()[0] for part in value.split(",") if part.split()]


class References(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.urls = []
        self.in_style = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("img", "source"):
            if attrs.get("src"):
                self.urls.append(attrs["src"])
            if attrs.get("srcset"):
                self.urls += srcset_urls(attrs["srcset"])
        if attrs.get("style"):
            self.urls += css_urls(attrs["style"])
        self.in_style = tag == "style"

    def handle_endtag(self, tag):
        self.in_style = False

    def handle_data(self, data):
        if self.in_style:
            self.urls += css_urls(data)


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def find_page(path):
    if os.path.isfile(path):
        return path
    pages = []
    for folder, _, files in os.walk(path):
        pages += [os.path.join(folder, name) for name in files if name.endswith((".html", ".htm"))]
    pages.sort(key=lambda p: (os.path.basename(p) != "index.html", p.count(os.sep), p))
    return pages[0] if pages else None


def check_page(page, wanted):
    parser = References()
    with open(page, "rb") as f:
        parser.feed(f.read().decode("utf-8", "replace"))
    folder = os.path.dirname(page)
    remote = collections.Counter()
    missing = 0
    found = set()
    for url in parser.urls:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme or parts.netloc:
            remote[parts.scheme or "//"] += 1
            continue
        local = os.path.normpath(os.path.join(folder, urllib.parse.unquote(parts.path)))
        if not os.path.isfile(local):
            missing += 1
            continue
        d = digest(local)
        if d in wanted:
            found.add(d)
    schemes = ", ".join(f"{k}: {v}" for k, v in sorted(remote.items()))
    return (f"{len(found)}/{len(wanted)} images referenced through local files with the original bytes "
            f"({len(parser.urls)} references: {sum(remote.values())} still remote{' (' + schemes + ')' if remote else ''}, "
            f"{missing} to missing files; page {page})"), found


def check_files(folder, wanted):
    found = set()
    count = 0
    for root, _, files in os.walk(folder):
        for name in files:
            count += 1
            d = digest(os.path.join(root, name))
            if d in wanted:
                found.add(d)
    return f"{len(found)}/{len(wanted)} images downloaded with the original bytes ({count} files under {folder})", found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("root")
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--page")
    group.add_argument("--files")
    args = parser.parse_args()
    with open(os.path.join(args.root, "manifest.json"), encoding="utf-8") as f:
        wanted = set(json.load(f).values())
    if args.page:
        page = find_page(args.page)
        if page is None:
            print(f"0/{len(wanted)} images: no .html page under {args.page}")
            return 1
        summary, found = check_page(page, wanted)
    else:
        summary, found = check_files(args.files, wanted)
    print(summary)
    return 0 if found == wanted else 1


if __name__ == "__main__":
    sys.exit(main())
