#!/usr/bin/env python3
"""The fastest parser a user could pick instead: selectolax's lexbor backend parses each page and
finds every img (reading their src), writing nothing. Not a rewriter: a floor for lexbor-based ones.

usage: selectolax_scan.py PAGE...
"""
import sys

from selectolax.lexbor import LexborHTMLParser


def main():
    images = 0
    for path in sys.argv[1:]:
        with open(path, "rb") as f:
            data = f.read()
        tree = LexborHTMLParser(data)
        for img in tree.css("img"):
            img.attributes.get("src")
            images += 1
    print(images)


if __name__ == "__main__":
    main()
