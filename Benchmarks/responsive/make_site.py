#!/usr/bin/env python3
"""Generates the responsive benchmark's site: ~40 pages of responsive images, every image offered in
several widths, densities or types, with bytes in proportion to pixels.

usage: make_site.py DOCROOT SITE_DIR --origin https://127.0.0.1:PORT [--prefix /site/] [--pages 40]
                    [--seed 20240701]

Writes two trees with the same pages:
- DOCROOT<prefix>  (DOCROOT/site/): what nginx serves, with the images under img/;
- SITE_DIR:        what `imgcache fetch SITE_DIR` is given: the same pages WITHOUT img/, so that every
                   image comes from the network;
plus DOCROOT/manifest.json (each image: path → [kind, width, height, bytes]; each page's images as
browser_pick reads them), DOCROOT/urls.txt (the page URLs, for wget2 -i) and DOCROOT/expected.json
(for each device case of run.sh, and for every candidate: the distinct images a browser shows over
the whole site, and their bytes; see browser_pick). Deterministic: the same arguments give byte-identical files.
Standard library only.

Each page has, as real pages do (see README.md for the exact markup):
- a hero <img> with a width srcset (320w, 640w, 1024w, 1600w, 2400w) and
  sizes="(max-width: 600px) 100vw, (max-width: 1200px) 50vw, 800px"; every third page a second one
  with another common `sizes` (100vw; (min-width: 1200px) calc(33vw - 2rem), 90vw; ...);
- an author avatar with a density srcset (1x, 2x, 3x), shared by the pages of one of 6 authors;
- a <picture> with <source type="image/avif">, <source type="image/webp"> (640w, 1024w, 1600w) and
  a JPEG <img> with the same widths;
- art direction: <picture><source media="(min-width: 900px)" srcset="wide 1600w, 2400w"> and an
  <img> of a tighter crop (480w, 800w);
- the site's logo and three thumbnails as plain <img src> (PNG).
Image files are real: JPEG (a valid baseline greyscale JPEG of the stated width and height),
PNG (valid, greyscale, the stated size), and for AVIF and WebP files that start as such files do
(`????ftypavif`, `RIFF????WEBPVP8X` with the canvas size), padded to their byte size: about 0.10
byte per pixel for AVIF, 0.15 for WebP, 0.25 for JPEG and 0.5 for PNG. The makers (make_image) are
also what catchall_proxy.py answers with.
"""
import argparse
import hashlib
import importlib.util
import json
import os
import posixpath
import random
import re
import struct
import urllib.parse
import zlib

# The PNG chunk and JPEG segment writers of the fetch benchmark's images, as the site benchmark takes them.
_spec = importlib.util.spec_from_file_location(
    "fetch_make_site", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fetch", "make_site.py"))
_fetch_site = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fetch_site)
png_chunk = _fetch_site.png_chunk
jpeg_segment = _fetch_site.jpeg_segment

BYTES_PER_PIXEL = {"avif": 0.10, "webp": 0.15, "jpg": 0.25, "png": 0.5, "gif": 0.5}
MIN_BYTES = 600


def target_size(kind, width, height):
    return max(MIN_BYTES, int(BYTES_PER_PIXEL[kind] * width * height))


# MARK: - Image makers: make_image(kind, width, height, size, tag) → bytes of exactly `size`
# (or the least the format needs, if more). `tag` (bytes) is written first in the padding, so that
# two images of the same kind and size still differ.

def _padding(tag, n):
    return (tag + bytes(max(0, n - len(tag))))[:n] if n > 0 else b""


def make_jpeg(width, height, size, tag):
    """A baseline greyscale JPEG of width x height: every 8x8 block is DC difference 0 then end of
    block, one Huffman code of one bit each, so 2 bits a block; COM segments carry the rest."""
    head = b"\xFF\xD8" + jpeg_segment(0xE0, b"JFIF\0\x01\x01\x00\x00\x01\x00\x01\x00\x00")
    body = jpeg_segment(0xDB, b"\x00" + bytes([1] * 64))
    body += jpeg_segment(0xC0, b"\x08" + struct.pack(">HH", height, width) + b"\x01" + b"\x01\x11\x00")
    body += jpeg_segment(0xC4, b"\x00" + bytes([1] + [0] * 15) + b"\x00")    # DC table 0: category 0
    body += jpeg_segment(0xC4, b"\x10" + bytes([1] + [0] * 15) + b"\x00")    # AC table 0: EOB
    body += jpeg_segment(0xDA, b"\x01\x01\x00\x00\x3F\x00")
    bits = 2 * (-(-width // 8)) * (-(-height // 8))
    scan = bytearray(-(-bits // 8))
    if bits % 8:
        scan[-1] = (1 << (8 - bits % 8)) - 1                                  # padded with 1s
    body += bytes(scan) + b"\xFF\xD9"
    rest = size - len(head) - len(body)
    comments = bytearray()
    first = True
    while rest >= 4 + (len(tag) if first else 1):
        n = min(rest - 4, 65533)
        if rest - 4 - n in (1, 2, 3):     # leave no remainder too small for a segment of its own
            n -= 4
        comments += jpeg_segment(0xFE, _padding(tag if first else b"", n))
        rest -= n + 4
        first = False
    return head + bytes(comments) + body


_IDAT = {}


def make_png(width, height, size, tag):
    """A greyscale 8-bit PNG of width x height (black), a tEXt chunk carrying the rest."""
    key = (width, height)
    if key not in _IDAT:
        _IDAT[key] = zlib.compress((b"\x00" + bytes(width)) * height, 6)
    head = b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
    tail = png_chunk(b"IDAT", _IDAT[key]) + png_chunk(b"IEND", b"")
    rest = size - len(head) - len(tail) - 12 - len(b"Comment\0")
    text = png_chunk(b"tEXt", b"Comment\0" + _padding(tag, rest).replace(b"\0", b" ")) if rest > len(tag) else b""
    return head + text + tail


def make_webp(width, height, size, tag):
    """RIFF....WEBPVP8X (extended format, the canvas size, XMP flag) and an XMP chunk of padding."""
    vp8x = struct.pack("<I", 0x04) + struct.pack("<I", width - 1)[:3] + struct.pack("<I", height - 1)[:3]
    chunks = b"VP8X" + struct.pack("<I", len(vp8x)) + vp8x
    rest = size - 12 - len(chunks) - 8
    rest = max(len(tag), rest - rest % 2)
    chunks += b"XMP " + struct.pack("<I", rest) + _padding(tag, rest)
    return b"RIFF" + struct.pack("<I", 4 + len(chunks)) + b"WEBP" + chunks


def make_avif(width, height, size, tag):
    """An ftyp box (major brand avif), then a free box of padding (the width and height in its first bytes)."""
    ftyp = b"ftypavif" + struct.pack(">I", 0) + b"avifmif1miaf"
    ftyp = struct.pack(">I", 4 + len(ftyp)) + ftyp
    rest = max(8 + 8 + len(tag), size - len(ftyp))
    free = struct.pack(">II", width, height) + _padding(tag, rest - 16)
    return ftyp + struct.pack(">I", rest) + b"free" + free


def make_gif(width, height, size, tag):
    """A valid GIF89a of width x height (one colour), a comment extension carrying the rest."""
    head = b"GIF89a" + struct.pack("<HH", width, height) + b"\x80\x00\x00" + b"\x00\x00\x00\xFF\xFF\xFF"
    # Image data: a clear code, then (code size 2, 3-bit codes) stop: the decoder fills with colour 0.
    image = b"\x2C" + struct.pack("<HHHH", 0, 0, width, height) + b"\x00" + b"\x02" + b"\x01\x2C\x00"
    tail = image + b"\x3B"
    rest = size - len(head) - len(tail)
    out = bytearray()
    if rest >= 5 + len(tag):
        data = _padding(tag, rest - 3 - (-(-(rest - 3) // 256))).replace(b"\0", b" ")
        out += b"\x21\xFE"
        for i in range(0, len(data), 255):
            block = data[i:i + 255]
            out += bytes([len(block)]) + block
        out += b"\x00"
    return head + bytes(out) + tail


MAKERS = {"jpg": make_jpeg, "png": make_png, "webp": make_webp, "avif": make_avif, "gif": make_gif}


def make_image(kind, width, height, size=None, tag=b""):
    return MAKERS[kind](width, height, target_size(kind, width, height) if size is None else size, tag)


# MARK: - The site

WORDS = ("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore "
         "et dolore magna aliqua responsive images phone tablet desktop picture source density width").split()
FOLDERS = ["", "news", "news/2024", "blog", "shop/items"]
HERO_WIDTHS = (320, 640, 1024, 1600, 2400)
HERO_SIZES = "(max-width: 600px) 100vw, (max-width: 1200px) 50vw, 800px"
OTHER_SIZES = ("100vw", "(min-width: 1200px) calc(33vw - 2rem), 90vw", "(max-width: 768px) 100vw, 720px",
               "(min-width: 64em) 50vw, 100vw")
PICTURE_WIDTHS = (640, 1024, 1600)
PICTURE_SIZES = "(max-width: 900px) 100vw, 900px"
AUTHORS = 6
AVATAR = 96


# MARK: - What a browser shows (the expected figures)

# The benchmark's device cases: (viewport width, height in CSS pixels, device pixel ratio) each.
DEVICE_CASES = {"phone": [(390, 844, 3)], "desktop": [(1280, 800, 1)],
                "three": [(390, 844, 3), (820, 1180, 2), (1280, 800, 1)]}
SUPPORTED_TYPES = ("image/avif", "image/webp", "image/jpeg", "image/png", "image/gif")
FONT_PX = 16


def media_matches(media, width, height):
    """The media conditions the pages use: (min-width: L) and (max-width: L), with px or em lengths."""
    if not media:
        return True
    for feature, value, unit in re.findall(r"\((min|max)-width:\s*([\d.]+)(px|em)\)", media):
        px = float(value) * (FONT_PX if unit == "em" else 1)
        if (feature == "min" and width < px) or (feature == "max" and width > px):
            return False
    return True


def length_px(text, width):
    """The lengths the pages' sizes use: Npx, Nvw, Nrem/Nem, calc(A - B) of those."""
    text = text.strip()
    m = re.fullmatch(r"calc\((.+?)\s+([-+])\s+(.+)\)", text)
    if m:
        a, b = length_px(m.group(1), width), length_px(m.group(3), width)
        return a - b if m.group(2) == "-" else a + b
    m = re.fullmatch(r"([\d.]+)(px|vw|rem|em)", text)
    value, unit = float(m.group(1)), m.group(2)
    return value * {"px": 1, "vw": width / 100, "rem": FONT_PX, "em": FONT_PX}[unit]


def sizes_px(sizes, width, height):
    for entry in (sizes or "100vw").split(","):
        entry = entry.strip()
        media, _, length = entry.rpartition(") ")
        if media and media_matches(media + ")", width, height):
            return length_px(length, width)
        if not media:
            return length_px(entry, width)
    return width


def browser_pick(element, width, height, dpr):
    """The candidate a browser shows: the first <source> whose type and media match (else the img),
    then of its srcset the first candidate, by density, at or above the device pixel ratio (else the
    densest) — WebKit's rule; Chromium may take the one just below when it is closer."""
    for c in element:
        if (c["type"] is None or c["type"] in SUPPORTED_TYPES) and media_matches(c["media"], width, height):
            break
    slot = sizes_px(c["sizes"], width, height)
    cands = sorted(((v / slot if unit == "w" else v), path) for path, v, unit in c["cands"])
    return next((path for density, path in cands if density >= dpr), cands[-1][1])


def totals(paths, images):
    return {"images": len(paths), "bytes": sum(images[p][3] for p in paths)}


def sentence(rng, lo=8, hi=30):
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("docroot")
    parser.add_argument("site_dir")
    parser.add_argument("--origin", required=True, help="scheme://host:port the clients use")
    parser.add_argument("--prefix", default="/site/")
    parser.add_argument("--pages", type=int, default=40)
    parser.add_argument("--seed", type=int, default=20240701)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    prefix = "/" + args.prefix.strip("/") + "/"
    base_url = args.origin.rstrip("/") + prefix
    served = os.path.join(args.docroot, prefix.strip("/"))
    images = {}

    def image(rel, kind, width, height):
        """Writes img/REL (once) and returns its path under the site."""
        path = f"img/{rel}"
        if path not in images:
            data = make_image(kind, width, height, tag=hashlib.sha256(path.encode()).digest()[:16])
            full = os.path.join(served, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "wb") as f:
                f.write(data)
            images[path] = [kind, width, height, len(data)]
        return path

    def url(folder, path):
        """Relative, root-relative or absolute (60/25/15%), as the site benchmark mixes them."""
        kind = rng.choices(("rel", "root", "abs"), weights=(60, 25, 15))[0]
        if kind == "root":
            return prefix + path
        if kind == "abs":
            return base_url + path
        return posixpath.relpath(path, folder or ".")

    def widths_srcset(folder, name, kind, widths, ratio):
        paths = [image(f"{name}-{w}.{kind}", kind, w, round(w * ratio)) for w in widths]
        return paths, ", ".join(f"{url(folder, p)} {w}w" for p, w in zip(paths, widths))

    def choice(paths, values, unit, sizes=None, media=None, mime=None):
        """One <source> or <img> as browser_pick reads it."""
        return {"type": mime, "media": media, "sizes": sizes, "cands": [[p, v, unit] for p, v in zip(paths, values)]}

    elements = []       # per page: its images, each a list of choices (sources, then the img)

    logo = image("logo.png", "png", 240, 80)
    pages = []
    for p in range(args.pages):
        folder = FOLDERS[p % len(FOLDERS)]
        name = "index.html" if p < len(FOLDERS) else f"article-{p:02d}.html"
        page = posixpath.join(folder, name) if folder else name
        pages.append(page)
        shown = [[choice([logo], [1], "x")]]
        elements.append(shown)
        out = ['<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
               '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
               f"<title>Responsive benchmark page {p}</title>\n</head>\n<body>\n"
               f'<header><img src="{url(folder, logo)}" alt="Logo" width="120" height="40"></header>\n<main>\n'
               f"<h1>{sentence(rng, 3, 7)}</h1>\n"]
        # The hero: width descriptors and the sizes of the issue.
        paths, srcset = widths_srcset(folder, f"hero/h{p:02d}", "jpg", HERO_WIDTHS, 2 / 3)
        shown.append([choice(paths, HERO_WIDTHS, "w", HERO_SIZES)])
        out.append(f'<img class="hero" src="{url(folder, paths[2])}" srcset="{srcset}" sizes="{HERO_SIZES}" '
                   f'alt="Hero" width="1024" height="683">\n')
        # The author: density descriptors, one avatar per author.
        author = p % AUTHORS
        avatars = [image(f"avatar/a{author}-{AVATAR * d}.jpg", "jpg", AVATAR * d, AVATAR * d) for d in (1, 2, 3)]
        shown.append([choice(avatars, (1, 2, 3), "x")])
        out.append(f'<p class="byline"><img src="{url(folder, avatars[0])}" srcset="'
                   + ", ".join(f"{url(folder, a)} {d}x" for a, d in zip(avatars, (1, 2, 3)))
                   + f'" alt="Author {author}" width="{AVATAR}" height="{AVATAR}"> {sentence(rng, 2, 4)}</p>\n')
        out.append(f"<p>{sentence(rng)}</p>\n")
        # A picture by type: AVIF, WebP, then the JPEG img.
        sources = []
        picture = []
        for kind, mime in (("avif", "image/avif"), ("webp", "image/webp")):
            paths, srcset = widths_srcset(folder, f"gallery/g{p:02d}", kind, PICTURE_WIDTHS, 9 / 16)
            sources.append(f'<source type="{mime}" srcset="{srcset}" sizes="{PICTURE_SIZES}">')
            picture.append(choice(paths, PICTURE_WIDTHS, "w", PICTURE_SIZES, mime=mime))
        paths, srcset = widths_srcset(folder, f"gallery/g{p:02d}", "jpg", PICTURE_WIDTHS, 9 / 16)
        shown.append(picture + [choice(paths, PICTURE_WIDTHS, "w", PICTURE_SIZES)])
        out.append("<figure><picture>" + "".join(sources)
                   + f'<img src="{url(folder, paths[1])}" srcset="{srcset}" sizes="{PICTURE_SIZES}" alt="Gallery" '
                   f'loading="lazy"></picture><figcaption>{sentence(rng, 4, 10)}</figcaption></figure>\n')
        out.append(f"<p>{sentence(rng)}</p>\n")
        # Art direction: a wide crop from 900 CSS pixels up, a tighter one below.
        wides, wide = widths_srcset(folder, f"banner/b{p:02d}-wide", "jpg", (1600, 2400), 9 / 21)
        paths, crop = widths_srcset(folder, f"banner/b{p:02d}-crop", "jpg", (480, 800), 5 / 4)
        shown.append([choice(wides, (1600, 2400), "w", "100vw", media="(min-width: 900px)"),
                      choice(paths, (480, 800), "w", "100vw")])
        out.append(f'<picture><source media="(min-width: 900px)" srcset="{wide}" sizes="100vw">'
                   f'<img src="{url(folder, paths[1])}" srcset="{crop}" sizes="100vw" alt="Banner"></picture>\n')
        # Every third page: a second article image with another common sizes.
        if p % 3 == 0:
            paths, srcset = widths_srcset(folder, f"hero/s{p:02d}", "jpg", HERO_WIDTHS, 2 / 3)
            shown.append([choice(paths, HERO_WIDTHS, "w", OTHER_SIZES[(p // 3) % len(OTHER_SIZES)])])
            out.append(f'<img src="{url(folder, paths[1])}" srcset="{srcset}" '
                       f'sizes="{OTHER_SIZES[(p // 3) % len(OTHER_SIZES)]}" alt="Photo">\n')
        # Plain thumbnails.
        out.append('<ul class="related">')
        for k in range(3):
            thumb = image(f"thumbs/t{p:02d}-{k}.png", "png", 150, 150)
            shown.append([choice([thumb], [1], "x")])
            out.append(f'<li><img src="{url(folder, thumb)}" alt="Related {k}" width="150" height="150"></li>')
        out.append("</ul>\n")
        out.append(f'</main>\n<footer><a href="{posixpath.relpath("index.html", folder or ".")}">Home</a></footer>\n'
                   "</body></html>\n")
        data = "".join(out).encode()
        for root in (served, args.site_dir):
            full = os.path.join(root, page)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "wb") as f:
                f.write(data)

    expected = {"all candidates": totals(images, images)}
    for name, devices in DEVICE_CASES.items():
        picked = {path for device in devices for shown in elements for element in shown
                  for path in [browser_pick(element, *device)]}
        expected[name] = totals(picked, images)
    with open(os.path.join(args.docroot, "expected.json"), "w", encoding="utf-8") as f:
        json.dump(expected, f, indent=1, sort_keys=True)

    manifest = {"base_url": base_url, "prefix": prefix, "pages": pages, "images": images, "elements": elements}
    with open(os.path.join(args.docroot, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=0, sort_keys=True)
    with open(os.path.join(args.docroot, "urls.txt"), "w", encoding="utf-8") as f:
        f.write("".join(base_url + urllib.parse.quote(page) + "\n" for page in pages))
    total = sum(v[3] for v in images.values())
    kinds = {}
    for kind, _, _, size in images.values():
        kinds[kind] = kinds.get(kind, 0) + 1
    print(f"{len(pages)} pages, {len(images)} images ({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))}; "
          f"{total / 1e6:.1f} MB), base URL {base_url}")


if __name__ == "__main__":
    main()
