#!/usr/bin/env python3
"""Generates the benchmark corpus: realistic pages mixing every kind of image reference.

usage: make_pages.py OUT_DIR [--pages N] [--page-kb KB] [--large-mb MB] [--density dense|ordinary]
                    [--family NAME]

dense (the default): every other block holds images, about 5,000 references per MB, where a
rewriter's own work weighs most. ordinary: one block in ten is drawn from all kinds, the others are
text, lists and scripts, about the 230 img per MB of real saved pages.

--family makes pages of one shape that the real pages have little of, so that a rewriter tuned on
those is measured on others too (FAMILIES below): tidy-normalised XHTML, inline style attributes,
big <style> blocks, inline SVG, long srcsets, data: URLs, thousands of links.
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


def xhtml_block(rng, i):
    """What HTML Tidy (-asxhtml) makes of an ordinary page: quoted, lowercase, self-closed."""
    kind = i % 6
    if kind == 0:
        return f'<p class="lead">{paragraph(rng)} <a href="/article/{i}?ref=home&amp;s=1" title="Read">read more</a></p>\n'
    if kind == 1:
        return (f'<div class="figure"><img src="/photos/{i}.jpg" alt="Photo {i}" width="640" height="480" />'
                f'<br />\n<span class="caption">{paragraph(rng)[:80]}</span></div>\n')
    if kind == 2:
        return f'<ul class="nav">\n' + "".join(f'<li><a href="/c/{i}/{j}">Item {j}</a></li>\n' for j in range(6)) + '</ul>\n'
    if kind == 3:
        return f'<table summary="t{i}"><tr><td style="width: 50%">{paragraph(rng)[:90]}</td><td><img src="/t/{i}.gif" alt="" /></td></tr></table>\n'
    if kind == 4:
        return f'<script type="text/javascript">\n//<![CDATA[\nvar d{i} = {{"thumb": "/t/{i}.png"}};\n//]]>\n</script>\n'
    return f'<h2 id="s{i}">{paragraph(rng)[:40]}</h2>\n<p>{paragraph(rng)}</p>\n'


def inline_style_block(rng, i):
    """Page builders' output: every element styled inline, a background image now and then."""
    colors = ("#333", "#f5f5f5", "rgb(20, 40, 60)", "rgba(0,0,0,.5)", "#0a84ff")
    style = (f'margin: {rng.randint(0, 40)}px auto; padding: {rng.randint(0, 20)}px {rng.randint(0, 20)}px; '
             f'color: {rng.choice(colors)}; font: {rng.randint(12, 18)}px/1.4 &quot;Helvetica Neue&quot;, Arial, sans-serif; '
             f'border: 1px solid {rng.choice(colors)}; box-shadow: 0 1px 3px rgba(0,0,0,.2)')
    if i % 4 == 0:
        style += f"; background: {rng.choice(colors)} url('/bg/{i}.jpg') no-repeat center / cover"
    words = paragraph(rng)[:rng.randint(40, 160)]
    return (f'<div class="el-{i}" style="{style}"><span style="display: inline-block; width: 48%; '
            f'vertical-align: top">{words}</span></div>\n')


def style_block(rng, i):
    """A big <style>: hundreds of rules, some with url() (backgrounds, fonts, cursors)."""
    rules = []
    for j in range(40):
        n = i * 40 + j
        decls = (f"margin:{rng.randint(0, 30)}px;padding:0 {rng.randint(0, 20)}px;color:#{rng.randrange(16**6):06x};"
                 f"transition:opacity .2s ease-in-out,transform .3s cubic-bezier(.2,.8,.2,1)")
        if n % 5 == 0:
            decls += f";background:url(/sprites/{n}.png) {rng.randint(0, 99)}px 0 no-repeat"
        if n % 17 == 0:
            decls += f';background-image:image-set("/hd/{n}.png" 1x,"/hd/{n}@2x.png" 2x)'
        rules.append(f".c{n} > .item:hover, .c{n}[data-x='{n}'] {{{decls}}}")
    font = f"@font-face{{font-family:F{i};src:url(/fonts/f{i}.woff2) format('woff2'),url(/fonts/f{i}.woff) format('woff')}}"
    media = f"@media (max-width: {600 + i}px) {{ .c{i} {{ display:none }} .m{i}{{background-image:url('/m/{i}.gif')}} }}"
    return "<style>\n" + "\n".join(rules) + "\n" + font + "\n" + media + "\n</style>\n" + f"<p>{paragraph(rng)}</p>\n"


def svg_block(rng, i):
    """Inline SVG icons and charts: long path data, <use> and the odd <image>."""
    points = " ".join(f"L{rng.randint(0, 500)},{rng.randint(0, 300)}" for _ in range(rng.randint(40, 120)))
    image = f'<image href="/charts/{i}.png" x="0" y="0" width="50" height="50"/>' if i % 3 == 0 else ""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 500 300" '
            f'width="500" height="300"><defs><linearGradient id="g{i}"><stop offset="0" stop-color="#fff"/>'
            f'<stop offset="1" stop-color="#000"/></linearGradient></defs><path d="M0,0 {points} Z" fill="url(#g{i})" '
            f'stroke="#333"/><use xlink:href="#icon-{i % 7}"/>{image}</svg>\n<p>{paragraph(rng)[:100]}</p>\n')


def srcset_block(rng, i):
    """Responsive images from a CMS: 12–20 candidates each, on img and picture sources."""
    widths = list(range(160, 160 + 120 * rng.randint(12, 20), 120))
    cdn = f"https://images.example-cdn.com/uploads/2024/{i % 12 + 1:02d}/photo-{i}"
    srcset = ", ".join(f"{cdn}-{w}x{w * 2 // 3}.jpg {w}w" for w in widths)
    sizes = "(max-width: 480px) 100vw, (max-width: 1024px) 50vw, 33vw"
    if i % 2 == 0:
        return f'<img src="{cdn}-640x427.jpg" srcset="{srcset}" sizes="{sizes}" alt="" loading="lazy" decoding="async">\n'
    webp = ", ".join(f"{cdn}-{w}.webp {w}w" for w in widths)
    return (f'<picture><source type="image/webp" srcset="{webp}" sizes="{sizes}"><source srcset="{srcset}" sizes="{sizes}">'
            f'<img src="{cdn}-640x427.jpg" alt=""></picture>\n')


def data_url_block(rng, i):
    """Inlined images: data: URLs of 1–40 KB in img src and in CSS."""
    size = rng.choice((1, 2, 4, 8, 40)) * 1024
    payload = "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/") for _ in range(size))
    if i % 2 == 0:
        return f'<img src="data:image/png;base64,iVBORw0KGgo{payload}" alt="inline {i}">\n<p>{paragraph(rng)[:60]}</p>\n'
    return f'<div style="background-image:url(data:image/gif;base64,R0lGODlh{payload})">{paragraph(rng)[:60]}</div>\n'


def links_block(rng, i):
    """Mega menus, tag clouds and footers: a thousand links for every few images."""
    links = "".join(f'<li><a href="/section/{i}/topic-{j}?utm_source=nav&amp;utm_medium=menu" class="nav-link" '
                    f'data-track="nav.{i}.{j}">Topic {j}</a></li>' for j in range(rng.randint(40, 80)))
    image = f'<img src="/promo/{i}.png" alt="">' if i % 5 == 0 else ""
    return f'<nav class="menu-{i}"><ul>{links}</ul>{image}</nav>\n'


FAMILIES = {
    "xhtml": xhtml_block,
    "inline-style": inline_style_block,
    "style-blocks": style_block,
    "svg": svg_block,
    "srcset": srcset_block,
    "data-urls": data_url_block,
    "links": links_block,
}

XHTML_HEAD = ('<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" '
              '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">\n<html xmlns="http://www.w3.org/1999/xhtml" '
              'xml:lang="en" lang="en">\n<head>\n<meta http-equiv="Content-Type" content="text/html; charset=utf-8" />\n'
              '<title>Benchmark page</title>\n<link rel="stylesheet" type="text/css" href="/site.css" />\n</head>\n<body>\n')


def assemble(head, tail, size, block):
    """head, then block(0), block(1), … until the page is at least size characters, then tail."""
    parts = [head]
    total = len(head)
    i = 0
    while total < size:
        b = block(i)
        parts.append(b)
        total += len(b)
        i += 1
    parts.append(tail)
    return "".join(parts)


def family_page(rng, size, family):
    head = XHTML_HEAD if family == "xhtml" else (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Benchmark page</title>\n'
        '<link rel="stylesheet" href="/site.css"></head>\n<body>\n')
    return assemble(head, "</body>\n</html>\n", size, lambda i: FAMILIES[family](rng, i))


def page(rng, size, density="dense"):
    head = ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Benchmark page</title>\n'
            '<link rel="icon" href="/favicon.png"><link rel="stylesheet" href="/site.css">\n'
            '<style>body{background:url(/bg/paper.png)} .logo{background-image:url("/logo.gif")}</style></head>\n<body>\n')
    return assemble(head, "</body></html>\n", size, lambda i: block(rng, i, density))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--pages", type=int, default=40)
    parser.add_argument("--page-kb", type=int, default=500)
    parser.add_argument("--large-mb", type=int, default=20)
    parser.add_argument("--density", choices=("dense", "ordinary"), default="dense")
    parser.add_argument("--family", choices=sorted(FAMILIES))
    args = parser.parse_args()
    rng = random.Random(42)
    os.makedirs(args.out, exist_ok=True)

    def make(size):
        return family_page(rng, size, args.family) if args.family else page(rng, size, args.density)

    for n in range(args.pages):
        with open(os.path.join(args.out, f"page{n:03d}.html"), "w", encoding="utf-8") as f:
            f.write(make(args.page_kb * 1024))
    if args.large_mb > 0:
        with open(os.path.join(args.out, "large.html"), "w", encoding="utf-8") as f:
            f.write(make(args.large_mb * 1024 * 1024))


if __name__ == "__main__":
    main()
