#!/usr/bin/env python3
"""Generates the fetch benchmark's web root: real PNG, JPEG and GIF images and one page referencing them all.

usage: make_site.py WEB_ROOT [--images N] [--min-kb 2] [--max-kb 40] [--seed 20240601]

Writes WEB_ROOT/index.html, the images under WEB_ROOT/assets/, WEB_ROOT/images.txt (each image's
path relative to WEB_ROOT, one a line, in page order) and WEB_ROOT/manifest.json (path → SHA-256 of
its bytes, so a downloaded copy can be checked whatever it was renamed to). Deterministic: the same
arguments give byte-identical files. Needs the standard library only (no PIL).

Each image's size is drawn uniformly from [min-kb, max-kb] KiB and met exactly:
- PNG: a 64-pixel-wide RGB image of random pixels in zlib *stored* blocks (so the pixel data really
  is that big), topped up to the exact size by a tEXt chunk;
- JPEG: a valid 8x8 grey baseline JPEG, with a COM segment carrying the rest of the bytes;
- GIF: a valid 8x8 GIF89a, with a comment extension carrying the rest of the bytes.
Every image's bytes are distinct (random payload), so a content digest identifies it.
"""
import argparse
import hashlib
import json
import os
import random
import struct
import zlib

# Bytes → printable ASCII, so tEXt / COM / comment payloads are valid text.
PRINTABLE = bytes(0x21 + (b % 94) for b in range(256))


def payload(rng, n):
    return rng.randbytes(n).translate(PRINTABLE) if n > 0 else b""


# MARK: - PNG

def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def zlib_stored(raw):
    """A zlib stream of stored (uncompressed) deflate blocks."""
    out = bytearray(b"\x78\x01")
    blocks = [raw[i:i + 65535] for i in range(0, len(raw), 65535)] or [b""]
    for index, block in enumerate(blocks):
        final = 1 if index == len(blocks) - 1 else 0
        out += bytes([final]) + struct.pack("<HH", len(block), len(block) ^ 0xFFFF) + block
    out += struct.pack(">I", zlib.adler32(raw) & 0xFFFFFFFF)
    return bytes(out)


def make_png(rng, size):
    width = 64
    row = 1 + width * 3                      # filter byte + RGB
    fixed = 8 + 25 + 12 + 12 + 2 + 4 + 12   # signature, IHDR, empty IDAT chunk, IEND, zlib header, adler
    text_overhead = 12 + len(b"Comment\0")
    # Leave room for the tEXt chunk; each stored block costs 5 bytes.
    height = max(1, (size - fixed - text_overhead - 5) // (row + 1))
    while True:
        raw_len = row * height
        idat_len = 2 + raw_len + 5 * max(1, -(-raw_len // 65535)) + 4
        rest = size - (8 + 25 + (12 + idat_len) + 12)
        if rest >= text_overhead or height == 1:
            break
        height -= 1
    raw = bytearray()
    for _ in range(height):
        raw += b"\x00" + rng.randbytes(width * 3)
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    data = b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr)
    data += png_chunk(b"tEXt", b"Comment\0" + payload(rng, size - len(data) - (12 + idat_len) - 12 - text_overhead))
    data += png_chunk(b"IDAT", zlib_stored(bytes(raw))) + png_chunk(b"IEND", b"")
    return data


# MARK: - JPEG

def jpeg_segment(marker, body):
    return bytes([0xFF, marker]) + struct.pack(">H", len(body) + 2) + body


def make_jpeg(rng, size):
    """An 8x8 grey baseline JPEG: one block, DC difference 0, end of block; Huffman tables of one code each."""
    head = b"\xFF\xD8" + jpeg_segment(0xE0, b"JFIF\0\x01\x01\x00\x00\x01\x00\x01\x00\x00")
    tail = jpeg_segment(0xDB, b"\x00" + bytes([1] * 64))                       # quantisation table 0
    tail += jpeg_segment(0xC0, b"\x08" + struct.pack(">HH", 8, 8) + b"\x01" + b"\x01\x11\x00")
    tail += jpeg_segment(0xC4, b"\x00" + bytes([1] + [0] * 15) + b"\x00")      # DC table 0: category 0
    tail += jpeg_segment(0xC4, b"\x10" + bytes([1] + [0] * 15) + b"\x00")      # AC table 0: EOB
    tail += jpeg_segment(0xDA, b"\x01\x01\x00\x00\x3F\x00")
    tail += b"\x3F"                                                             # bits 0 (DC) 0 (EOB), padded with 1s
    tail += b"\xFF\xD9"
    comment = size - len(head) - len(tail) - 4
    return head + jpeg_segment(0xFE, payload(rng, comment)) + tail


# MARK: - GIF

def gif_comment(rng, total):
    """A comment extension of exactly `total` bytes (total >= 5)."""
    body = total - 3                        # 0x21 0xFE ... 0x00
    blocks = -(-body // 256)                # each sub-block: 1 length byte + 1..255 data bytes
    data = body - blocks
    out = bytearray(b"\x21\xFE")
    for index in range(blocks):
        n = data // blocks + (1 if index < data % blocks else 0)
        out += bytes([n]) + payload(rng, n)
    out += b"\x00"
    return bytes(out)


def make_gif(rng, size):
    head = b"GIF89a" + struct.pack("<HH", 8, 8) + b"\x80\x00\x00" + b"\x00\x00\x00\xFF\xFF\xFF"
    # LZW, minimum code size 2: a clear code (4) before each of the 64 pixels keeps codes 3 bits wide.
    codes = []
    for _ in range(64):
        codes += [4, 0]
    codes.append(5)
    bits = 0
    nbits = 0
    lzw = bytearray()
    for code in codes:
        bits |= code << nbits
        nbits += 3
        while nbits >= 8:
            lzw.append(bits & 0xFF)
            bits >>= 8
            nbits -= 8
    if nbits:
        lzw.append(bits & 0xFF)
    image = b"\x2C" + struct.pack("<HHHH", 0, 0, 8, 8) + b"\x00" + b"\x02"
    image += bytes([len(lzw)]) + bytes(lzw) + b"\x00"
    tail = image + b"\x3B"
    return head + gif_comment(rng, size - len(head) - len(tail)) + tail


MAKERS = {"jpg": make_jpeg, "png": make_png, "gif": make_gif}


# MARK: - Page

WORDS = ("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore "
         "et dolore magna aliqua offline images cache page reader gallery photo album travel").split()


def sentence(rng, lo=8, hi=30):
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi)))


def page(rng, paths):
    """Every path referenced exactly once: mostly img src, some srcset / picture, some CSS url()."""
    style_rules = []
    body = []
    i = 0
    n = len(paths)
    block = 0
    while i < n:
        kind = block % 20
        block += 1
        left = n - i
        if kind == 3 and left >= 2:
            a, b = paths[i], paths[i + 1]
            i += 2
            body.append(f'<figure><img src="{a}" srcset="{a} 320w, {b} 640w" sizes="(max-width: 600px) 100vw, 50vw" '
                        f'alt="Photo {block}"><figcaption>{sentence(rng, 4, 10)}</figcaption></figure>\n')
        elif kind == 11 and left >= 3:
            a, b, c = paths[i], paths[i + 1], paths[i + 2]
            i += 3
            body.append(f'<picture><source srcset="./{b} 1x, {c} 2x"><img src="{a}" alt=""></picture>\n')
        elif kind in (7, 15):
            a = paths[i]
            i += 1
            body.append(f'<div class="banner" style="background-image: url(\'{a}\'); min-height: 40px">'
                        f'{sentence(rng)}</div>\n')
        elif kind == 18:
            a = paths[i]
            i += 1
            style_rules.append(f'.tile{block} {{ background-image: url("{a}"); }}\n')
            body.append(f'<div class="tile{block}"><p>{sentence(rng)}</p></div>\n')
        else:
            a = paths[i]
            i += 1
            body.append(f'<p>{sentence(rng)}</p>\n' if kind % 4 == 0 else "")
            body.append(f'<img src="{a}" alt="Image {block}" width="64" height="64" loading="lazy">\n')
    head = ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n<title>imgcache fetch benchmark</title>\n'
            '<style>\nbody { font-family: sans-serif }\n' + "".join(style_rules) + '</style>\n</head>\n<body>\n'
            '<h1>Gallery</h1>\n')
    return head + "".join(body) + '<p><a href="about.html">About</a></p>\n</body></html>\n'


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("root")
    parser.add_argument("--images", type=int, default=2000)
    parser.add_argument("--min-kb", type=float, default=2)
    parser.add_argument("--max-kb", type=float, default=40)
    parser.add_argument("--seed", type=int, default=20240601)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    os.makedirs(args.root, exist_ok=True)
    paths = []
    manifest = {}
    for index in range(args.images):
        ext = rng.choices(("jpg", "png", "gif"), weights=(50, 35, 15))[0]
        size = rng.randint(int(args.min_kb * 1024), int(args.max_kb * 1024))
        folder = ("photos", "thumbs", "icons", "banners")[index % 4]
        path = f"assets/{folder}/{index // 250:02d}/img{index:05d}.{ext}"
        data = MAKERS[ext](rng, size)
        assert len(data) == size, (path, len(data), size)
        full = os.path.join(args.root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)
        paths.append(path)
        manifest[path] = hashlib.sha256(data).hexdigest()

    with open(os.path.join(args.root, "index.html"), "w", encoding="utf-8") as f:
        f.write(page(rng, paths))
    with open(os.path.join(args.root, "about.html"), "w", encoding="utf-8") as f:
        f.write("<!DOCTYPE html><title>About</title><p>Not an image.</p>\n")
    with open(os.path.join(args.root, "images.txt"), "w", encoding="utf-8") as f:
        f.write("".join(p + "\n" for p in paths))
    with open(os.path.join(args.root, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=0, sort_keys=True)
    total = sum(os.path.getsize(os.path.join(args.root, p)) for p in paths)
    print(f"{len(paths)} images, {total / 1e6:.1f} MB, page {os.path.getsize(os.path.join(args.root, 'index.html')) / 1e3:.0f} KB")


if __name__ == "__main__":
    main()
