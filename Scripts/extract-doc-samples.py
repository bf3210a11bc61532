#!/usr/bin/env python3
"""Writes the ```swift code blocks of the README and the DocC articles into the packages that
Scripts/check-apple.sh generates, verbatim, so that a Mac compiles exactly what the docs say.

usage: Scripts/extract-doc-samples.py ROOT APP_PACKAGE TOOL_PACKAGE

Each block becomes one file. The block's lines are copied unchanged; the only lines added are
marked with the comment `// check-apple: wrapper` at their end, so that deleting every line that
ends so gives the block back (Tests/e2e/apple-check-dry-run.sh checks it does). The rule, the
same for every block (no block is treated by name):

- A block whose first line of code starts with `.` is a manifest fragment (`.package(…)`,
  `.product(…)`): it goes into the app package's Package.swift, as the arguments of a function
  that takes one `Package.Dependency` and any number of `Target.Dependency`, inside a function the
  manifest never calls (a placeholder such as "<version>" type-checks but would fail if run).
  File: APP_PACKAGE/ManifestSamples/<Doc>-<n>.swift, which check-apple.sh appends to Package.swift.
- A block that declares a type or function at column 0 (`class`, `struct`, `enum`, `actor`,
  `protocol`, `extension`, `func`, `typealias`, with attributes and modifiers) goes at file scope.
- Any other block is statements: its leading `import` lines stay at file scope, and the rest goes
  into `@MainActor func docSample_<Doc>_<n>(…) async throws { … }`. The function's parameters are
  the block's free variables, from the table FREE_VARIABLES below: a name there that the block
  uses (outside `//` comments, not after a `.`, not as an argument label) and does not declare
  with `let`/`var` becomes a parameter of the listed type. A name the table lacks fails to compile
  on the Mac, which is how a sample that uses something undefined shows up.
- Every file starts with `import Foundation`, `import ImgCache`, `import ImgCacheURLSession`: an
  article's later blocks use what its first block imported. A block that names WebKit (`import
  WebKit`, `WKWebView`, `WKURLScheme…`) or the free variable `webView` also gets `import WebKit`,
  and its file is wrapped in `#if canImport(WebKit)`.
- A block that imports `ImgCacheHTTPClient` needs the package's default `CommandLine` trait: it
  goes into the tool package (TOOL_PACKAGE/Sources/ToolSamples), which has the trait on. Every
  other block goes into the app package (traits off), target AppPages (APP_PACKAGE/Sources/AppPages/DocSamples).

Writes WORK/samples.tsv (WORK being the app package's parent): doc, block number, first line in
the doc, kind, package, file, parameters. Exits 1 when a block cannot be wrapped by the rule.
"""
import os
import re
import sys

DOCS = [
    "README.md",
    "Sources/ImgCache/ImgCache.docc/GettingStarted.md",
    "Sources/ImgCache/ImgCache.docc/WebViews.md",
]
MARK = "// check-apple: wrapper"
# Names the samples leave to the reader's context, and what they stand for.
FREE_VARIABLES = [
    ("webView", "WKWebView"),
    ("pageURL", "BrowserURL"),
    ("pageBytes", "[UInt8]"),
    ("cacheFolder", "String"),
    ("store", "ImageCacheStore"),
    ("refreshes", "inout Task<Void, Never>?"),
]
DECLARATION = re.compile(
    r"^(@\w+(\([^)]*\))?\s+)*((public|private|fileprivate|internal|package|open|final|nonisolated)\s+)*"
    r"(class|struct|enum|actor|protocol|extension|func|typealias)\b")


def blocks(text):
    """(first line number, lines) of each ```swift block."""
    found, current, start = [], None, 0
    for number, line in enumerate(text.split("\n"), 1):
        if current is None:
            if line.strip() == "```swift":
                current, start = [], number + 1
        elif line.strip() == "```":
            found.append((start, current))
            current = None
        else:
            current.append(line)
    if current is not None:
        raise SystemExit(f"an unclosed ```swift block from line {start}")
    return found


def code_only(line):
    """The line without a `//` comment (one that starts the line or follows a space)."""
    return re.sub(r"(^|\s)//.*$", "", line)


def uses_webkit(code):
    return re.search(r"\bimport WebKit\b|\bWK[A-Z]\w*", code) is not None


def free_variables(code):
    found = []
    for name, type_name in FREE_VARIABLES:
        used = re.search(rf"(?<![.\w]){name}\b(?!\s*:)", code)
        declared = re.search(rf"\b(let|var)\s+{name}\b", code)
        if used and not declared:
            found.append((name, type_name))
    return found


def main():
    root, app, tool = sys.argv[1:4]
    work = os.path.dirname(os.path.abspath(app))
    rows, problems = [], []
    for doc in DOCS:
        stem = os.path.splitext(os.path.basename(doc))[0]
        with open(os.path.join(root, doc), encoding="utf-8") as f:
            text = f.read()
        for index, (start, lines) in enumerate(blocks(text), 1):
            name = f"{stem}-{index}"
            where = f"{doc}, ```swift block {index} (line {start})"
            code_lines = [code_only(line) for line in lines]
            code = "\n".join(code_lines)
            first = next((line.strip() for line in code_lines if line.strip()), "")
            webkit = uses_webkit(code) or any(n == "webView" for n, _ in free_variables(code))
            package = "tool" if re.search(r"^import ImgCacheHTTPClient\b", code, re.M) else "app"
            params = ""
            if first.startswith("."):
                kind = "manifest"
                package = "app"
                out = [
                    f"// From {where}: a manifest fragment, type-checked, never run. {MARK}",
                    f"func docSample_{stem}_{index}() {{ {MARK}",
                    f"docSampleManifestLines( {MARK}",
                    *lines,
                    f") {MARK}",
                    f"}} {MARK}",
                ]
                path = os.path.join(app, "ManifestSamples", name + ".swift")
            else:
                declares = any(DECLARATION.match(line) for line in code_lines)
                prelude = [f"// From {where}. {MARK}"]
                if webkit:
                    prelude.append(f"#if canImport(WebKit) {MARK}")
                prelude += [f"import Foundation {MARK}", f"import ImgCache {MARK}", f"import ImgCacheURLSession {MARK}"]
                if webkit:
                    prelude.append(f"import WebKit {MARK}")
                if declares:
                    kind = "declarations"
                    body = lines
                else:
                    kind = "statements"
                    split = 0
                    while split < len(lines) and (lines[split].startswith("import ") or not lines[split].strip()):
                        split += 1
                    if any(line.startswith("import ") for line in lines[split:]):
                        problems.append(f"{where}: an import after the first statement cannot be wrapped")
                        continue
                    free = free_variables(code)
                    params = ", ".join(f"{n}: {t}" for n, t in free)
                    body = lines[:split] + [f"@MainActor func docSample_{stem}_{index}({params}) async throws {{ {MARK}"] \
                        + lines[split:] + [f"}} {MARK}"]
                out = prelude + body + ([f"#endif {MARK}"] if webkit else [])
                target = "ToolSamples" if package == "tool" else "AppPages"
                folder = os.path.join(tool if package == "tool" else app, "Sources", target, "DocSamples")
                path = os.path.join(folder, name + ".swift")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(out) + "\n")
            rows.append("\t".join([doc, str(index), str(start), kind, package, os.path.relpath(path, work), params]))
            print(f"  {name}: {kind}, {package} package{', WebKit' if webkit else ''}"
                  f"{', parameters ' + params if params else ''} -> {os.path.relpath(path, work)}")
    with open(os.path.join(work, "samples.tsv"), "w", encoding="utf-8") as f:
        f.write("doc\tblock\tline\tkind\tpackage\tfile\tparameters\n" + "".join(row + "\n" for row in rows))
    for problem in problems:
        print("cannot wrap: " + problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
