#!/usr/bin/env python3
"""Checks one tool's copy of the benchmark site: is every image of every page and stylesheet local?

usage: check_site.py DOCROOT OUT [--list N]

DOCROOT is make_site.py's first argument (manifest.json, and the served originals under
DOCROOT/site/); OUT is the tool's output folder, laid out like the site: OUT/<page or stylesheet
path> (imgcache's site mode; wget2 with -nH --cut-dirs=1). Where each tool put the images does not
matter: only what the references say.

For each of the site's pages and stylesheets, the original (from DOCROOT) and the output copy are
parsed the same way: in pages, img / source src and srcset, style attributes and <style> elements;
in stylesheets, every url(). The original's references are resolved against the file's URL; those
that name one of the site's images (not fonts, not @import-ed stylesheets) are the ones checked. The
output copy's reference at the same position (the reference count must not change; if it does, a
reference counts as local when some local reference of the copy has the expected bytes) must be
local: no scheme or host, not root-relative, resolving, relative to the copy's folder, to a file
inside OUT that exists and whose bytes are the original image's.

Prints one summary line, "N/TOTAL image references local with the original bytes (...)", and with
--list N the first N failures on standard error. Exits 0 when all TOTAL are.
"""
import argparse
import collections
import hashlib
import importlib.util
import json
import os
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("fetch_check_output", os.path.join(HERE, "..", "fetch", "check_output.py"))
fetch_check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fetch_check)


def references(path, is_css):
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", "replace")
    if is_css:
        return fetch_check.css_urls(text)
    parser = fetch_check.References()
    parser.feed(text)
    parser.close()
    return parser.urls


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("docroot")
    parser.add_argument("out")
    parser.add_argument("--list", type=int, default=0, metavar="N", help="print the first N failures on stderr")
    args = parser.parse_args()
    with open(os.path.join(args.docroot, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    base_url = manifest["base_url"]
    base = urllib.parse.urlsplit(base_url)
    prefix = manifest["prefix"]
    served = os.path.join(args.docroot, prefix.strip("/"))
    images = manifest["images"]
    out_root = os.path.realpath(args.out)

    digests = {}

    def digest(path):
        if path not in digests:
            with open(path, "rb") as f:
                digests[path] = hashlib.sha256(f.read()).hexdigest()
        return digests[path]

    counts = collections.Counter()
    remote = collections.Counter()
    failures = []
    found = set()
    files_ok = collections.Counter()

    def fail(kind, where, url):
        counts[kind] += 1
        if len(failures) < args.list:
            failures.append(f"{kind}: {where}: {url}")

    def judge(copy_dir, url, want):
        """→ (ok, kind of failure)"""
        parts = urllib.parse.urlsplit(url)
        if parts.scheme or parts.netloc:
            remote[parts.scheme or "//"] += 1
            return False, "remote"
        if parts.path.startswith("/"):
            return False, "root-relative"
        if not parts.path:
            return False, "empty"
        local = os.path.realpath(os.path.join(copy_dir, urllib.parse.unquote(parts.path)))
        if not (local == out_root or local.startswith(out_root + os.sep)):
            return False, "outside the output folder"
        if not os.path.isfile(local):
            return False, "missing file"
        if digest(local) != want:
            return False, "wrong bytes"
        return True, ""

    total = 0
    files = [(p, False) for p in manifest["pages"]] + [(s, True) for s in manifest["stylesheets"]]
    for rel, is_css in files:
        file_url = urllib.parse.urljoin(base_url, urllib.parse.quote(rel))
        expected = []     # (position, expected digest)
        for position, url in enumerate(references(os.path.join(served, rel), is_css)):
            target = urllib.parse.urlsplit(urllib.parse.urljoin(file_url, url))
            if (target.scheme, target.netloc) != (base.scheme, base.netloc) or not target.path.startswith(prefix):
                continue
            path = urllib.parse.unquote(target.path[len(prefix):])
            if path in images:
                expected.append((position, images[path]))
        total += len(expected)
        kind_name = "stylesheet" if is_css else "page"
        copy = os.path.join(args.out, rel)
        if not os.path.isfile(copy):
            counts[f"{kind_name} missing"] += 1
            for _ in expected:
                fail("in a missing file", rel, "")
            continue
        copy_dir = os.path.dirname(copy)
        got = references(copy, is_css)
        original_count = len(references(os.path.join(served, rel), is_css))
        file_ok = True
        if len(got) == original_count:
            for position, want in expected:
                ok, why = judge(copy_dir, got[position], want)
                if ok:
                    counts["ok"] += 1
                    found.add(want)
                else:
                    file_ok = False
                    fail(why, rel, got[position])
        else:
            counts["files whose reference count changed"] += 1
            local = collections.Counter()
            for url in got:
                ok, _ = judge(copy_dir, url, None)
                parts = urllib.parse.urlsplit(url)
                if not (parts.scheme or parts.netloc or parts.path.startswith("/")) and parts.path:
                    path = os.path.realpath(os.path.join(copy_dir, urllib.parse.unquote(parts.path)))
                    if os.path.isfile(path):
                        local[digest(path)] += 1
            for _, want in expected:
                if local[want] > 0:
                    local[want] -= 1
                    counts["ok"] += 1
                    found.add(want)
                else:
                    file_ok = False
                    fail("not found among the copy's local references", rel, "")
        if file_ok:
            files_ok[kind_name] += 1

    ok = counts.pop("ok", 0)
    problems = [f"{n} {k}" for k, n in sorted(counts.items())]
    if remote:
        problems = [p if not p.endswith(" remote") else p + " (" + ", ".join(f"{k}: {v}" for k, v in sorted(remote.items())) + ")"
                    for p in problems]
    pages, sheets = len(manifest["pages"]), len(manifest["stylesheets"])
    print(f"{ok}/{total} image references local with the original bytes (pages all local {files_ok['page']}/{pages}, "
          f"stylesheets {files_ok['stylesheet']}/{sheets}, distinct images {len(found)}/{len(images)}"
          f"{'; ' + ', '.join(problems) if problems else ''})")
    for line in failures:
        print("  " + line, file=sys.stderr)
    return 0 if ok == total and len(found) == len(images) else 1


if __name__ == "__main__":
    sys.exit(main())
