#!/usr/bin/env python3
"""Writes the cache benchmark's pages over a web root made by Benchmarks/fetch/make_site.py.

usage: make_pages.py WEB_ROOT SITE_DIR --page-images N --pages P [--extra NAME:FIRST:COUNT ...]

Reads WEB_ROOT/images.txt (every image's path, in order) and writes, with make_site.py's own page
markup (img src, srcset, picture, inline and <style> backgrounds):
- P pages of N images each, page-000.html … (images 0 … P*N - 1, each on exactly one page), into
  both WEB_ROOT (to be fetched by URL) and SITE_DIR (to be fetched as a site in one run: SITE_DIR
  holds the pages and nothing else, so that imgcache fetches every image rather than finding it
  in the folder);
- each --extra NAME:FIRST:COUNT as WEB_ROOT/NAME.html, images FIRST … FIRST + COUNT - 1.
Deterministic: the same arguments give byte-identical pages.
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fetch"))
from make_site import page  # noqa: E402  (the fetch benchmark's page markup, shared)


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("root")
    parser.add_argument("site_dir")
    parser.add_argument("--page-images", type=int, required=True)
    parser.add_argument("--pages", type=int, required=True)
    parser.add_argument("--extra", action="append", default=[])
    parser.add_argument("--seed", type=int, default=20240601)
    args = parser.parse_args()

    with open(os.path.join(args.root, "images.txt"), encoding="utf-8") as f:
        paths = f.read().split()
    if args.pages * args.page_images > len(paths):
        sys.exit(f"{args.pages} pages of {args.page_images} need more images than the {len(paths)} in images.txt")
    rng = random.Random(args.seed)
    os.makedirs(args.site_dir, exist_ok=True)
    for number in range(args.pages):
        first = number * args.page_images
        text = page(rng, paths[first:first + args.page_images])
        name = f"page-{number:03d}.html"
        write(os.path.join(args.root, name), text)
        write(os.path.join(args.site_dir, name), text)
    for extra in args.extra:
        name, first, count = extra.split(":")
        first, count = int(first), int(count)
        if first + count > len(paths):
            sys.exit(f"--extra {extra}: images.txt has only {len(paths)} images")
        write(os.path.join(args.root, f"{name}.html"), page(rng, paths[first:first + count]))
    print(f"{args.pages} pages of {args.page_images} images, {len(args.extra)} more")


if __name__ == "__main__":
    main()
