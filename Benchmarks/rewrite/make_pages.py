#!/usr/bin/env python3
"""Generates the benchmark corpus: realistic pages mixing every kind of image reference.

usage: make_pages.py OUT_DIR [--pages N] [--page-kb KB] [--large-mb MB] [--density dense|ordinary]

dense (the default): every other block holds images, about 5,000 references per MB, where a
rewriter's own work weighs most. ordinary: one block in ten is drawn from all kinds, the others are
text, lists and scripts, about the 230 img per MB of real saved pages.
"""
import argparse
import os
import random

WORDS = ("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore "
         "et dolore magna aliqua offline images cache page reader hybrid app web view").split()


def paragraph(rng):
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 60)))


def block(rng, i, density):
    kind = i % 8
    if density == "ordinary" and i % 10 != 0:
        kind = (0, 6, 7)[i % 3]
    if kind == 0:
        return f'<p>{paragraph(rng)} <a href="/article/{i}?ref=home&amp;s=1">read more</a></p>\n'
    if kind == 1:
        return (f'<figure><img src="https://cdn.example.com/photos/{i}.jpg" alt="Photo {i}" width="640" height="480" '
                f'loading="lazy"><figcaption>{paragraph(rng)[:80]}</figcaption></figure>\n')
    if kind == 2:
        return (f'<img src="/img/{i}-320.png" srcset="/img/{i}-320.png 320w, /img/{i}-640.png 640w, '
                f'https://res.cloudinary.com/demo/image/upload/w_1280,c_fill/{i}.png 1280w" sizes="(max-width: 600px) 100vw, 50vw">\n')
    if kind == 3:
        return (f'<picture><source srcset="/hero/{i}.webp" type="image/webp"><source srcset="/hero/{i}@2x.jpg 2x, /hero/{i}.jpg 1x">'
                f'<img src="/hero/{i}.jpg" alt=""></picture>\n')
    if kind == 4:
        return f'<div class="banner" style="background-image: url(\'/banners/{i}.gif\'); color: #333">{paragraph(rng)}</div>\n'
    if kind == 5:
        return f'<!-- card {i}: <img src="/old/{i}.png"> --><div class="card"><img data-src="/lazy/{i}.jpg" class="lazyload"><span>{paragraph(rng)[:120]}</span></div>\n'
    if kind == 6:
        return f'<script>window.__data{i} = {{"id": {i}, "thumb": "/t/{i}.png"}};</script>\n'
    return f'<ul><li><a href="/c/{i}">Category {i}</a></li><li>{paragraph(rng)[:100]}</li></ul>\n'


def page(rng, size, density="dense"):
    head = ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Benchmark page</title>\n'
            '<link rel="icon" href="/favicon.png"><link rel="stylesheet" href="/site.css">\n'
            '<style>body{background:url(/bg/paper.png)} .logo{background-image:url("/logo.gif")}</style></head>\n<body>\n')
    parts = [head]
    total = len(head)
    i = 0
    while total < size:
        b = block(rng, i, density)
        parts.append(b)
        total += len(b)
        i += 1
    parts.append("</body></html>\n")
    return "".join(parts)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--pages", type=int, default=40)
    parser.add_argument("--page-kb", type=int, default=500)
    parser.add_argument("--large-mb", type=int, default=20)
    parser.add_argument("--density", choices=("dense", "ordinary"), default="dense")
    args = parser.parse_args()
    rng = random.Random(42)
    os.makedirs(args.out, exist_ok=True)
    for n in range(args.pages):
        with open(os.path.join(args.out, f"page{n:03d}.html"), "w", encoding="utf-8") as f:
            f.write(page(rng, args.page_kb * 1024, args.density))
    if args.large_mb > 0:
        with open(os.path.join(args.out, "large.html"), "w", encoding="utf-8") as f:
            f.write(page(rng, args.large_mb * 1024 * 1024, args.density))


if __name__ == "__main__":
    main()
