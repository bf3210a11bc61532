#!/usr/bin/env python3
"""The cache benchmark's checks. Prints one summary line; exits 0 when the check holds.

usage: check_cache.py page WEB_ROOT NAME OUT_PAGE   every image the served page WEB_ROOT/NAME refers to
                                                     is referred to by OUT_PAGE through a local file with
                                                     the original bytes (Benchmarks/fetch/check_output.py's
                                                     reading of a page, restricted to that page's images)
       check_cache.py folder CACHE_DIR CAP           the images in CACHE_DIR (every file but the dot files:
                                                     the index, the lock) add up to at most CAP bytes, and
                                                     no temporary file is left
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fetch"))
import check_output  # noqa: E402  (the fetch benchmark's page reader, shared)


def check_page(root, name, out_page):
    with open(os.path.join(root, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    served = check_output.References()
    with open(os.path.join(root, name), encoding="utf-8") as f:
        served.feed(f.read())
    wanted = {manifest[url.removeprefix("./")] for url in served.urls}
    summary, found = check_output.check_page(out_page, wanted)
    print(summary)
    return 0 if found == wanted else 1


def check_folder(cache, cap):
    images = image_bytes = other = 0
    temporary = []
    for folder, _, files in os.walk(cache):
        for name in files:
            size = os.lstat(os.path.join(folder, name)).st_size
            if ".tmp-" in name:
                temporary.append(name)
            elif name.startswith("."):
                other += size
            else:
                images += 1
                image_bytes += size
    within = image_bytes <= cap
    print(f"{images} images, {image_bytes} bytes ({'within' if within else 'OVER'} the cap of {cap}); "
          f"index and lock {other} bytes; {len(temporary)} temporary files")
    return 0 if within and not temporary else 1


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "page":
        return check_page(sys.argv[2], sys.argv[3], sys.argv[4])
    if len(sys.argv) == 4 and sys.argv[1] == "folder":
        return check_folder(sys.argv[2], int(sys.argv[3]))
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main())
