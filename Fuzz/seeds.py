#!/usr/bin/env python3
"""Assembles the seed corpus of each fuzz target from the repository's fixtures (and, when it is
there, the folder of real pages next to the checkout), so that no seed corpus is kept in git.

Usage: seeds.py ROOT OUT TARGET...   (ROOT: the repository; OUT/<target>/ receives the seeds)

Every target also gets the inputs saved under fixtures/fuzz/<target>/ (earlier findings).
"""
import hashlib
import os
import re
import sys

ROOT, OUT, TARGETS = sys.argv[1], sys.argv[2], sys.argv[3:]
FIXTURES = os.path.join(ROOT, "fixtures")
# The real pages, when the checkout sits next to them (as in the project's workspace).
PAGES = os.environ.get("IMGCACHE_PAGES", os.path.join(ROOT, "..", "shared", "pages"))
PAGE_PREFIX = 8 * 1024  # the rewriter's -max_len: longer pages are cut there anyway


def fixture_pages():
    for folder in ("rewrite", "example", "site"):
        path = os.path.join(FIXTURES, folder)
        for name in sorted(os.listdir(path)) if os.path.isdir(path) else []:
            if name.endswith(".html"):
                with open(os.path.join(path, name), "rb") as f:
                    yield f.read()


def real_pages():
    """Small pages whole, and the start of every page in a legacy encoding (up to 40 of those)."""
    manifest = os.path.join(PAGES, "MANIFEST.tsv")
    if not os.path.exists(manifest):
        return
    legacy = 0
    with open(manifest, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f][1:]
    for row in rows:
        name, size, charset = row[0], int(row[1]), row[7].lower()
        is_legacy = charset not in ("", "utf-8")
        if size > 40 * 1024 and not (is_legacy and legacy < 40):
            continue
        legacy += is_legacy
        with open(os.path.join(PAGES, name), "rb") as f:
            yield f.read(PAGE_PREFIX)


def attribute_values(pages, names):
    pattern = re.compile(rb'\s(?:' + b"|".join(names) + rb')\s*=\s*"([^"]{1,2000})"', re.I)
    for page in pages:
        yield from pattern.findall(page)


def css_pieces(pages):
    for page in pages:
        yield from re.findall(rb"<style[^>]*>(.*?)</style>", page, re.S | re.I)
        yield from re.findall(rb'\sstyle\s*=\s*"([^"]*url[^"]*)"', page, re.I)


INDEX_LINES = [
    b'{"byteCount":1234,"contentType":"image/png","etag":"\\"abc\\"","fetchedAt":1795366800.5,"formatVersion":1,'
    b'"imageFile":{"inode":42,"modifiedAtNanoseconds":1795366800500000000,"size":1234},'
    b'"lastModified":"Tue, 01 Dec 2026 10:00:00 GMT","lastUsedAt":1795366900.125,'
    b'"localName":"3f2a9c1b5e7d4f60a8b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718.png","sha256":'
    b'"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08","url":"https://example.com/a/cat.png"}',
    b'{"byteCount":1,"contentType":null,"fetchedAt":0.0,"formatVersion":1,"imageFile":{"inode":1,'
    b'"modifiedAtNanoseconds":0,"size":1},"lastUsedAt":0.0,'
    b'"localName":"3f/3f2a9c1b5e7d4f60a8b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718.jpg","sha256":"00","url":"http://x/y.jpg"}',
    b'{"lastUsedAt":1795366900.125,"used":"3f2a9c1b5e7d4f60a8b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718.png"}',
    b'{"removed":"3f2a9c1b5e7d4f60a8b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718.png"}',
    b'{ "removed" : "3f2a9c1b5e7d4f60a8b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718.gif" }',
    b'{"used":"3f2a9c1b5e7d4f60a8b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718.webp","lastUsedAt":1e9}',
]


def seeds(target):
    pages = list(fixture_pages()) + list(real_pages())
    if target == "rewriter":
        yield from pages
    elif target == "srcset":
        yield from attribute_values(pages, [rb"srcset", rb"data-srcset"])
    elif target == "cssurls":
        yield from css_pieces(pages)
    elif target == "url":
        yield from attribute_values(pages, [rb"href", rb"src", rb"action"])
    elif target == "metacharset":
        for page in pages:
            yield page[:1100]
    elif target == "indexline":
        yield from INDEX_LINES
        yield b"\n".join(INDEX_LINES)


for target in TARGETS:
    folder = os.path.join(OUT, target)
    os.makedirs(folder, exist_ok=True)
    unique = {}
    for seed in seeds(target):
        unique.setdefault(hashlib.sha1(seed).hexdigest(), seed)
    # Cap the corpus: a few hundred varied seeds start a run as well as thousands.
    for digest in sorted(unique)[:600]:
        with open(os.path.join(folder, digest), "wb") as f:
            f.write(unique[digest])
    saved = os.path.join(FIXTURES, "fuzz", target)
    for name in sorted(os.listdir(saved)) if os.path.isdir(saved) else []:
        with open(os.path.join(saved, name), "rb") as src, open(os.path.join(folder, "fixture-" + name), "wb") as dst:
            dst.write(src.read())
    print(f"{target}: {len(os.listdir(folder))} seeds")
