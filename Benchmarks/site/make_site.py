#!/usr/bin/env python3
"""Generates the site benchmark's site: 300 pages in nested folders, 20 stylesheets, fonts, 2,500 images.

usage: make_site.py DOCROOT SITE_DIR --origin https://127.0.0.1:PORT [--prefix /site/] [--pages 300]
                    [--stylesheets 20] [--images 2500] [--per-page 20] [--min-kb 2] [--max-kb 40]
                    [--seed 20240615]

Writes two trees with the same pages, stylesheets and fonts:
- DOCROOT<prefix>  (DOCROOT/site/ by default): what nginx serves, with the images under img/;
- SITE_DIR:        what `imgcache fetch SITE_DIR` is given: the same files WITHOUT img/, so that
                   every image has to come from the network (imgcache leaves a reference to a file
                   that exists inside SITE_DIR alone, as a local asset).
plus DOCROOT/manifest.json (the base URL, the pages, stylesheets and fonts, and each image's path
under the site → SHA-256 of its bytes) and DOCROOT/urls.txt (the 300 page URLs, for wget2 -i).
Deterministic: the same arguments give byte-identical files. Standard library only.

The site:
- pages at depths 0-3 (index.html, a/, a/b/, c/d/e/, ...); each links 1-2 stylesheets
  (<link rel="stylesheet">, relative hrefs) and references `per_page` distinct images: the shared
  logo (img src + srcset 2x) and 4 shared icons on every page, and 14 content images (one img with a
  srcset of two, two style="background-image: url()" divs, ten plain img src);
- stylesheets in css/, a/css/, docs/css/ and shop/css/: an @import of another stylesheet (all but
  the root one, css/fonts.css; a tree, no cycles), a @font-face with a .woff2 url (relative to the
  stylesheet), ten url() background images of their own (img/bg/) and one shared icon;
- every image reference is relative (../img/x.png), root-relative (/site/img/x.png) or absolute
  (https://127.0.0.1:PORT/site/img/x.png), drawn at random (55/25/20%);
- all `images` images are used at least once: 6 shared, 10 per stylesheet in img/bg/, the rest dealt
  over the pages' content slots first, the remaining slots filled with a skewed random pick (some
  images are on many pages).
Images are real PNG / JPEG / GIF files of 2-40 KB, made by Benchmarks/fetch/make_site.py's makers.
"""
import argparse
import hashlib
import importlib.util
import json
import os
import posixpath
import random
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("fetch_make_site", os.path.join(HERE, "..", "fetch", "make_site.py"))
fetch_site = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fetch_site)
MAKERS = fetch_site.MAKERS
sentence = fetch_site.sentence

# Page folders, depths 0-3.
FOLDERS = ["", "a", "c", "news", "docs", "shop",
           "a/b", "c/d", "news/2023", "news/2024", "docs/guide", "shop/items",
           "a/b/x", "c/d/e", "news/2024/05", "docs/guide/advanced", "shop/items/sale"]
CSS_FOLDERS = ["css"] * 10 + ["a/css"] * 4 + ["docs/css"] * 3 + ["shop/css"] * 3
FONTS = 4
SHARED_ICONS = 4
CONTENT_PER_PAGE = 14       # + logo, logo-2x and 4 icons = 20
BG_PER_SHEET = 10


def write(roots, rel, data):
    for root in roots:
        full = os.path.join(root, rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("docroot")
    parser.add_argument("site_dir")
    parser.add_argument("--origin", required=True, help="scheme://host:port the clients use")
    parser.add_argument("--prefix", default="/site/")
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--stylesheets", type=int, default=20)
    parser.add_argument("--images", type=int, default=2500)
    parser.add_argument("--per-page", type=int, default=20)
    parser.add_argument("--min-kb", type=float, default=2)
    parser.add_argument("--max-kb", type=float, default=40)
    parser.add_argument("--seed", type=int, default=20240615)
    args = parser.parse_args()
    assert args.per_page == 2 + SHARED_ICONS + CONTENT_PER_PAGE, "the page layout holds 20 images"
    assert args.stylesheets == len(CSS_FOLDERS), "the stylesheet layout holds 20 stylesheets"

    rng = random.Random(args.seed)
    prefix = "/" + args.prefix.strip("/") + "/"
    origin = args.origin.rstrip("/")
    base_url = origin + prefix
    served = os.path.join(args.docroot, prefix.strip("/"))
    both = (served, args.site_dir)

    # MARK: images
    images = {}          # path under the site → sha256

    def make_image(rel, ext=None):
        ext = ext or rng.choices(("jpg", "png", "gif"), weights=(50, 35, 15))[0]
        rel = f"{rel}.{ext}"
        size = rng.randint(int(args.min_kb * 1024), int(args.max_kb * 1024))
        data = MAKERS[ext](rng, size)
        assert len(data) == size, (rel, len(data), size)
        write((served,), rel, data)
        images[rel] = hashlib.sha256(data).hexdigest()
        return rel

    logo = make_image("img/logo/logo", "png")
    logo2x = make_image("img/logo/logo-2x", "png")
    icons = [make_image(f"img/icons/icon-{k}", ("png", "gif")[k % 2]) for k in range(SHARED_ICONS)]
    bgs = [make_image(f"img/bg/bg{k:03d}") for k in range(args.stylesheets * BG_PER_SHEET)]
    content_count = args.images - len(images)
    assert content_count > 0
    content = [make_image(f"img/photos/{k // 100:02d}/img{k:05d}") for k in range(content_count)]

    # MARK: fonts
    fonts = []
    for k in range(FONTS):
        rel = f"fonts/bench-{k}.woff2"
        write(both, rel, b"wOF2" + rng.randbytes(rng.randint(8 * 1024, 24 * 1024)))
        fonts.append(rel)

    def ref(from_dir, target, forms=(55, 25, 20)):
        """A URL for target (a path under the site) from a file in from_dir: relative, root-relative or absolute."""
        kind = rng.choices(("rel", "root", "abs"), weights=forms)[0]
        if kind == "root":
            return prefix + target
        if kind == "abs":
            return base_url + target
        return posixpath.relpath(target, from_dir or ".")

    # MARK: stylesheets (a tree of @imports: sheet i imports sheet (i - 1) // 2; sheet 0 is the root)
    sheets = []
    names = ["fonts", "base", "layout", "type", "grid", "forms", "buttons", "tables", "print", "theme"]
    counters = {}
    for i, folder in enumerate(CSS_FOLDERS):
        if folder == "css":
            name = names[i]
        else:
            counters[folder] = counters.get(folder, 0) + 1
            name = f"{folder.split('/')[0]}-{counters[folder]}"
        sheets.append(f"{folder}/{name}.css")
    for i, sheet in enumerate(sheets):
        folder = posixpath.dirname(sheet)
        out = [f"/* {sheet}: generated for the imgcache site benchmark */\n"]
        if i > 0:
            parent = posixpath.relpath(sheets[(i - 1) // 2], folder)
            out.append(f'@import url("{parent}");\n' if i % 2 else f'@import "{parent}";\n')
        font = fonts[i % FONTS]
        out.append(f'@font-face {{ font-family: "Bench{i}"; src: url("{posixpath.relpath(font, folder)}") '
                   f'format("woff2"); font-display: swap; }}\n')
        out.append(f'body.s{i} {{ font-family: "Bench{i}", sans-serif; color: #222; }}\n')
        for j in range(BG_PER_SHEET):
            url = ref(folder, bgs[i * BG_PER_SHEET + j], forms=(70, 20, 10))
            quoted = (f"{url}", f'"{url}"', f"'{url}'")[j % 3]
            prop = "background" if j % 2 else "background-image"
            value = f"#eee url({quoted}) no-repeat" if prop == "background" else f"url({quoted})"
            out.append(f".s{i}-bg{j} {{ {prop}: {value}; min-height: 40px; }}\n")
        icon = icons[i % SHARED_ICONS]
        out.append(f'.s{i}-icon::before {{ content: ""; background-image: url("{ref(folder, icon)}"); }}\n')
        write(both, sheet, "".join(out).encode())

    # MARK: pages
    pages = []
    for p in range(args.pages):
        folder = FOLDERS[p % len(FOLDERS)]
        name = "index.html" if p < len(FOLDERS) else f"page-{p:03d}.html"
        pages.append(posixpath.join(folder, name) if folder else name)

    # Content images: every one dealt once, then the rest of the slots by a skewed pick.
    shuffled = content[:]
    rng.shuffle(shuffled)
    per_page = [[] for _ in pages]
    for k, image in enumerate(shuffled):
        per_page[k % len(pages)].append(image)
    weights = [1.0 / (r + 20) for r in range(len(content))]
    popular = content[:]
    rng.shuffle(popular)
    for chosen in per_page:
        assert len(chosen) <= CONTENT_PER_PAGE, "too few pages for the images"
        have = set(chosen)
        while len(chosen) < CONTENT_PER_PAGE:
            pick = rng.choices(popular, weights=weights)[0]
            if pick not in have:
                have.add(pick)
                chosen.append(pick)
        rng.shuffle(chosen)

    for p, page in enumerate(pages):
        folder = posixpath.dirname(page)
        links = [sheets[p % len(sheets)]]
        if rng.random() < 0.5:
            other = rng.choice(sheets)
            if other not in links:
                links.append(other)
        head = ['<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n',
                f"<title>Site benchmark page {p}</title>\n"]
        head += [f'<link rel="stylesheet" href="{posixpath.relpath(s, folder or ".")}">\n' for s in links]
        head.append("</head>\n")
        home = posixpath.relpath("index.html", folder or ".")
        lg = ref(folder, logo)
        body = [f'<body class="s{p % len(sheets)}">\n<header><a href="{home}">'
                f'<img class="logo" src="{lg}" srcset="{lg} 1x, {ref(folder, logo2x)} 2x" alt="Logo" width="120" height="40"></a>\n<nav>']
        for k, icon in enumerate(icons):
            body.append(f'<a href="{home}#s{k}"><img src="{ref(folder, icon)}" alt="" width="16" height="16"></a> ')
        body.append("</nav></header>\n<main>\n")
        body.append(f"<h1>{sentence(rng, 3, 6)}</h1>\n")
        c = per_page[p]
        a, b = ref(folder, c[0]), ref(folder, c[1])
        body.append(f'<figure><img src="{a}" srcset="{a} 480w, {b} 960w" '
                    f'sizes="(max-width: 600px) 100vw, 50vw" alt="Photo"><figcaption>{sentence(rng, 4, 10)}</figcaption></figure>\n')
        for image in c[2:4]:
            body.append(f'<div class="banner" style="background-image: url(\'{ref(folder, image)}\'); min-height: 40px">'
                        f"{sentence(rng)}</div>\n")
        for k, image in enumerate(c[4:]):
            if k % 3 == 0:
                body.append(f"<p>{sentence(rng)}</p>\n")
            body.append(f'<img src="{ref(folder, image)}" alt="Image {k}" width="64" height="64" loading="lazy">\n')
        nxt = pages[(p + 1) % len(pages)]
        body.append(f'</main>\n<footer><a href="{posixpath.relpath(nxt, folder or ".")}">Next</a> '
                    f'<span class="s{p % len(sheets)}-icon"></span></footer>\n</body></html>\n')
        write(both, page, ("".join(head) + "".join(body)).encode())

    manifest = {"base_url": base_url, "prefix": prefix, "pages": pages, "stylesheets": sheets, "fonts": fonts,
                "images": images}
    with open(os.path.join(args.docroot, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=0, sort_keys=True)
    with open(os.path.join(args.docroot, "urls.txt"), "w", encoding="utf-8") as f:
        f.write("".join(base_url + urllib.parse.quote(page) + "\n" for page in pages))
    total = sum(os.path.getsize(os.path.join(served, p)) for p in images)
    print(f"{len(pages)} pages, {len(sheets)} stylesheets, {len(fonts)} fonts, {len(images)} images "
          f"({total / 1e6:.1f} MB), base URL {base_url}")


if __name__ == "__main__":
    main()
