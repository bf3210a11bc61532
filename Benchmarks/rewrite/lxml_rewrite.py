#!/usr/bin/env python3
"""The peer: parse each page with lxml.html, rewrite every img src to a hashed local path, serialise.

usage: lxml_rewrite.py OUT_DIR PAGE...
"""
import hashlib
import os
import sys
import urllib.parse

import lxml.html

BASE = "https://example.com/articles/page.html"


def local(src):
    url = urllib.parse.urljoin(BASE, src.strip())
    ext = os.path.splitext(urllib.parse.urlsplit(url).path)[1].lower()
    if ext not in (".jpg", ".jpeg", ".png", ".gif"):
        return src
    return "images/" + hashlib.sha256(url.encode()).hexdigest() + ext


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for path in sys.argv[2:]:
        with open(path, "rb") as f:
            data = f.read()
        doc = lxml.html.document_fromstring(data)
        for img in doc.iter("img"):
            src = img.get("src")
            if src:
                img.set("src", local(src))
        with open(os.path.join(out, os.path.basename(path)), "wb") as f:
            f.write(lxml.html.tostring(doc, doctype="<!DOCTYPE html>"))


if __name__ == "__main__":
    main()
