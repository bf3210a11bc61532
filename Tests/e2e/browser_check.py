#!/usr/bin/env python3
"""Loads the page `imgcache demo` wrote in headless Chromium, offline, and checks its images; then
a page fetched by URL, opened from disk with its server up: its stylesheet and script come from the
server, its images from disk.

Usage: browser_check.py --imgcache BIN --missing images/gallery-5.jpg [--chromium BIN] [--work DIR]

Runs `imgcache demo --out WORK/out` (a real HTTP server on 127.0.0.1 and the live pipeline), then
opens WORK/out/index.html from the file system.

Chromium is driven through the DevTools protocol over `--remote-debugging-pipe` (JSON messages
separated by NUL bytes on file descriptors 3 and 4), with nothing but the standard library. The
page on disk is never modified: the checks run as a `Runtime.evaluate` in the loaded page, which
only reads the DOM and creates detached `Image` objects to probe each referenced file.

Networking is disabled (`--host-resolver-rules=MAP * ~NOTFOUND`, an unusable proxy) and every
request is recorded twice: the page's own requests through the `Network` domain, and the whole
browser's through `--log-net-log`. Neither may contain an http(s) URL.

Prints one line per check, then `N passed, M failed`; exits 1 when any check failed.
"""

import argparse
import json
import os
import pathlib
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

# Runs inside the page: gathers every image reference the way the page declares it, resolves it
# as the browser does, probes each distinct URL with a detached Image, and reports what the
# document's own <img> elements and CSS backgrounds show.
PAGE_CHECK = r"""
(async () => {
  const refs = [];
  const add = (kind, raw) => { if (raw && raw.trim()) refs.push({kind, raw: raw.trim()}); };
  const srcset = (kind, value) => {
    if (!value) return;
    for (const candidate of value.split(/,\s+/)) add(kind, candidate.trim().split(/\s+/)[0]);
  };
  const cssURLs = (kind, text) => {
    for (const m of (text || '').matchAll(/url\(\s*(['"]?)(.*?)\1\s*\)/g)) add(kind, m[2]);
  };
  for (const img of document.querySelectorAll('img')) {
    add('img src', img.getAttribute('src'));
    srcset('img srcset', img.getAttribute('srcset'));
    add('img data-src', img.getAttribute('data-src'));
    srcset('img data-srcset', img.getAttribute('data-srcset'));
  }
  for (const source of document.querySelectorAll('picture > source')) srcset('source srcset', source.getAttribute('srcset'));
  for (const link of document.querySelectorAll('link[rel~="icon"]')) add('link icon', link.getAttribute('href'));
  for (const video of document.querySelectorAll('video[poster]')) add('video poster', video.getAttribute('poster'));
  for (const el of document.querySelectorAll('[style]')) cssURLs('style attribute', el.getAttribute('style'));
  for (const style of document.querySelectorAll('style')) cssURLs('style element', style.textContent);

  const unique = new Map();
  for (const ref of refs) {
    const url = new URL(ref.raw, document.baseURI).href;
    if (!unique.has(url)) unique.set(url, {url, raw: ref.raw, kinds: []});
    if (!unique.get(url).kinds.includes(ref.kind)) unique.get(url).kinds.push(ref.kind);
  }
  const probe = (url) => new Promise((resolve) => {
    const image = new Image();
    image.onload = () => resolve({loaded: true, width: image.naturalWidth, height: image.naturalHeight});
    image.onerror = () => resolve({loaded: false, width: image.naturalWidth, height: image.naturalHeight});
    image.src = url;
  });
  const images = [];
  for (const entry of unique.values()) images.push({...entry, ...(await probe(entry.url))});

  const elements = [...document.images].map((img) => ({
    alt: img.alt, currentSrc: img.currentSrc, complete: img.complete, width: img.naturalWidth,
  }));
  const backgrounds = [...document.querySelectorAll('*')]
    .map((el) => ({element: el.tagName.toLowerCase() + (el.className ? '.' + el.className : ''),
                   value: getComputedStyle(el).backgroundImage}))
    .filter((b) => b.value && b.value !== 'none');
  return {baseURI: document.baseURI, title: document.title, images, elements, backgrounds,
          resources: performance.getEntriesByType('resource').map((e) => e.name)};
})()
"""


class Checks:
    """Counts and prints pass/fail lines."""

    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, message):
        if ok:
            self.passed += 1
            print(f"PASS {message}")
        else:
            self.failed += 1
            print(f"FAIL {message}")
        return ok


class DevToolsPipe:
    """The browser end of `--remote-debugging-pipe`: commands on fd 3, answers and events on fd 4."""

    def __init__(self, args, log_path):
        cmd_read, self.cmd_write = os.pipe()
        self.res_read, res_write = os.pipe()

        def wire_pipes():
            a, b = os.dup(cmd_read), os.dup(res_write)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.log = open(log_path, "wb")
        self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT,
                                        preexec_fn=wire_pipes, pass_fds=(3, 4))
        os.close(cmd_read)
        os.close(res_write)
        self.next_id = 0
        self.messages = queue.Queue()
        self.pending = []
        self.events = []
        threading.Thread(target=self._reader, daemon=True).start()

    def _reader(self):
        buffer = b""
        while True:
            chunk = os.read(self.res_read, 1 << 16)
            if not chunk:
                self.messages.put(None)
                return
            buffer += chunk
            while b"\0" in buffer:
                message, buffer = buffer.split(b"\0", 1)
                self.messages.put(json.loads(message))

    def _next(self, deadline):
        if self.pending:
            return self.pending.pop(0)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("no answer from Chromium")
        message = self.messages.get(timeout=remaining)
        if message is None:
            raise RuntimeError("Chromium closed the DevTools pipe")
        return message

    def send(self, method, params=None, session=None, timeout=30):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.cmd_write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            answer = self._next(deadline)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def wait_for_event(self, method, timeout=30):
        for event in self.events:
            if event.get("method") == method:
                return event
        deadline = time.monotonic() + timeout
        while True:
            event = self._next(deadline)
            self.events.append(event)
            if event.get("method") == method:
                return event

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


def chromium_arguments(binary, profile, net_log):
    return [
        binary,
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--remote-debugging-pipe",
        f"--user-data-dir={profile}",
        f"--log-net-log={net_log}", "--net-log-capture-mode=Default",
        # No network: every name fails to resolve, and any proxied request goes nowhere.
        "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9",
        # Keep the browser's own background traffic off, so the net log shows only the page's.
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-default-apps", "--disable-extensions", "--disable-domain-reliability",
        "--disable-client-side-phishing-detection", "--no-first-run", "--no-default-browser-check",
        "--metrics-recording-only", "--no-pings",
        "--disable-features=NetworkTimeServiceQuerying,Translate,OptimizationHints,MediaRouter,"
        "AutofillServerCommunication,CertificateTransparencyComponentUpdater",
        "--window-size=1280,2000",
        "about:blank",
    ]


class NetLog:
    """What the browser's network stack did, from `--log-net-log` (a log cut short is repaired)."""

    # Events that only happen once a connection is up: bytes written to a TCP socket, an HTTP
    # request sent or a response read, a TLS handshake under way.
    WIRE_EVENTS = ("SOCKET_BYTES_SENT", "HTTP_TRANSACTION_SEND_REQUEST", "HTTP_TRANSACTION_READ_RESPONSE_HEADERS",
                   "SSL_HANDSHAKE_MESSAGE_SENT")

    def __init__(self, path):
        text = pathlib.Path(path).read_text(errors="replace").rstrip()
        try:
            log = json.loads(text)
        except json.JSONDecodeError:
            log = json.loads(text.rstrip(",") + "]}")
        names = {number: name for name, number in log["constants"]["logEventTypes"].items()}
        self.event_count = len(log.get("events", []))
        # http(s) requests by who asked: web content carries its origin ("null" for a file:
        # page); the browser's own services (updater, sign-in, ...) have "not an origin".
        self.page_requests = []
        self.browser_requests = []
        self.wire_events = []
        for event in log.get("events", []):
            name = names.get(event["type"], "")
            params = event.get("params") or {}
            if name in self.WIRE_EVENTS:
                self.wire_events.append(name)
            if name != "URL_REQUEST_START_JOB":
                continue
            url = params.get("url", "")
            if not url.lower().startswith(("http://", "https://", "ws://", "wss://")):
                continue
            if params.get("initiator") == "not an origin":
                self.browser_requests.append(url)
            else:
                self.page_requests.append(url)


# A page served over HTTP whose stylesheet, script and link are relative: fetched by URL, written
# to disk and opened from there with its server still up, it must get its stylesheet and script
# from the server and its images from disk.
REMOTE_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Fetched by URL</title>
<link rel="stylesheet" href="css/site.css">
<script src="/js/app.js"></script>
</head><body>
<p><a href="next.html">Next</a></p>
<img id="photo" src="img/photo.png" alt="photo">
<div id="box" style="width: 10px; height: 10px; background-image: url('img/tile.png')"></div>
</body></html>
"""

REMOTE_CHECK = r"""
(async () => {
  await new Promise(resolve => setTimeout(resolve, 200));
  const img = document.getElementById('photo');
  return {
    color: getComputedStyle(document.body).color,
    script: document.documentElement.dataset.script || null,
    link: document.querySelector('a').href,
    imageSrc: img.currentSrc, imageWidth: img.naturalWidth,
    background: getComputedStyle(document.getElementById('box')).backgroundImage,
  };
})()
"""


def open_and_check(arguments, log_path, page_url, expression):
    """Starts Chromium with `arguments`, loads `page_url` in a new tab, and evaluates `expression`
    there once it has loaded. Returns what the expression returned and the URLs the page requested."""
    browser = DevToolsPipe(arguments, log_path)
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Network", "Runtime"):
            browser.send(f"{domain}.enable", session=session)
        browser.send("Page.navigate", {"url": page_url}, session=session)
        browser.wait_for_event("Page.loadEventFired", timeout=60)
        result = browser.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True},
                              session=session, timeout=60)
        if "exceptionDetails" in result:
            raise RuntimeError(f"the check script failed: {result['exceptionDetails']}")
        requests = [e["params"]["request"]["url"] for e in browser.events
                    if e.get("method") == "Network.requestWillBeSent" and e.get("sessionId") == session]
        return result["result"]["value"], requests
    finally:
        browser.close()


def png(width, height):
    """A valid RGB PNG of the given size, made with the standard library."""
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\0" + bytes([200, 30, 30]) * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def check_page_fetched_by_url(checks, options, work):
    """`imgcache fetch URL`: the page opened from disk, its server still up, gets its stylesheet and
    script from the server (made absolute) and its images from disk."""
    origin = work / "origin"
    (origin / "blog" / "css").mkdir(parents=True, exist_ok=True)
    (origin / "blog" / "img").mkdir(parents=True, exist_ok=True)
    (origin / "js").mkdir(parents=True, exist_ok=True)
    (origin / "blog" / "post.html").write_text(REMOTE_PAGE)
    (origin / "blog" / "css" / "site.css").write_text("body { color: rgb(1, 2, 3); }\n")
    (origin / "js" / "app.js").write_text("document.documentElement.dataset.script = 'ran';\n")
    (origin / "blog" / "img" / "photo.png").write_bytes(png(4, 3))
    (origin / "blog" / "img" / "tile.png").write_bytes(png(2, 2))
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(origin)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.05)
        out = work / "fetched"
        fetch = subprocess.run([options.imgcache, "fetch", f"{base}/blog/post.html", "--out", str(out), "--quiet"],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
        checks.check(fetch.returncode == 0, f"imgcache fetch of a page by URL exited {fetch.returncode} {fetch.stderr.strip()}")
        page_url = (out / "post.html").as_uri()
        profile = work / "profile-fetched"
        # The browser may reach 127.0.0.1 this time: the server is up, as the page's origin would be.
        arguments = [a for a in chromium_arguments(options.chromium, profile, work / "netlog-fetched.json")
                     if not a.startswith(("--host-resolver-rules", "--proxy-server"))]
        report, requests = open_and_check(arguments, work / "chromium-fetched.log", page_url, REMOTE_CHECK)
    finally:
        server.terminate()
        server.wait(timeout=10)

    checks.check(report["color"] == "rgb(1, 2, 3)",
                 f"opened from disk, the page fetched by URL gets its stylesheet from its server: body color {report['color']}")
    checks.check(report["script"] == "ran", f"and runs its script from its server: {report['script']}")
    checks.check(report["link"] == f"{base}/blog/next.html", f"its link leads to its server: {report['link']}")
    checks.check(report["imageSrc"].startswith("file://") and report["imageWidth"] == 4,
                 f"its <img> comes from disk: {report['imageSrc']} ({report['imageWidth']} px wide)")
    checks.check('url("file://' in report["background"], f"its CSS background comes from disk: {report['background']}")
    remote = sorted(url for url in requests if url.startswith("http"))
    checks.check(remote == sorted([f"{base}/blog/css/site.css", f"{base}/js/app.js"]),
                 f"the only requests to the server are the stylesheet and the script: {remote}")


def run_demo(checks, imgcache, out):
    """`imgcache demo --out OUT`: must exit 0 and say that one image is missing by design."""
    started = time.monotonic()
    demo = subprocess.run([imgcache, "demo", "--out", str(out)], stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    sys.stdout.write("".join(f"  | {line}\n" for line in (demo.stdout + demo.stderr).splitlines()))
    checks.check(demo.returncode == 0, f"imgcache demo exited {demo.returncode} in {time.monotonic() - started:.1f} s")
    checks.check("missing by design" in demo.stderr, "imgcache demo says the missing image is missing by design")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--imgcache", required=True, help="the built imgcache executable")
    parser.add_argument("--missing", required=True, help="the site path missing by design, e.g. images/gallery-5.jpg")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    parser.add_argument("--work", default=None, help="folder for the demo output, profile, net log and browser log")
    options = parser.parse_args()

    checks = Checks()
    started = time.monotonic()
    try:
        check_everything(checks, options)
    except Exception as error:  # a crash is a failed check, and the summary line still comes last
        checks.check(False, f"the check could not finish: {type(error).__name__}: {error}")
    try:
        work = pathlib.Path(options.work or tempfile.mkdtemp(prefix="imgcache-browser-")).resolve()
        work.mkdir(parents=True, exist_ok=True)
        check_page_fetched_by_url(checks, options, work)
    except Exception as error:
        checks.check(False, f"the check of a page fetched by URL could not finish: {type(error).__name__}: {error}")
    print(f"browser check took {time.monotonic() - started:.1f} s")
    print(f"{checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


def check_everything(checks, options):
    work = pathlib.Path(options.work or tempfile.mkdtemp(prefix="imgcache-browser-")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    out = work / "out"
    run_demo(checks, options.imgcache, out)
    page = out / "index.html"
    page_url = page.as_uri()

    # What imgcache says it did: every reference, its local path, and which ones failed.
    manifest = json.loads((out / "imgcache-manifest.json").read_text())
    entries = manifest["pages"][0]["references"]
    expected = {}
    for entry in entries:
        if entry.get("localPath"):
            url = urllib.parse.urljoin(page_url, entry["localPath"])
            expected[url] = entry
    failed = [e for e in entries if e["status"] == "failed"]
    checks.check(len(failed) == 1 and failed[0]["original"] == options.missing,
                 f"manifest: exactly one image failed, the one missing by design ({options.missing}): "
                 f"{[e['original'] for e in failed]}")
    missing_urls = {url for url, e in expected.items() if e["status"] == "failed"}

    net_log = work / "netlog.json"
    report, requests = open_and_check(chromium_arguments(options.chromium, work / "profile", net_log), work / "chromium.log",
                                      page_url, PAGE_CHECK)

    print(f"page: {report['baseURI']} ({report['title']})")

    # Every distinct image the page references, probed in the browser.
    found = {image["url"]: image for image in report["images"]}
    for url, image in sorted(found.items(), key=lambda item: expected.get(item[0], {}).get("original", item[1]["raw"])):
        entry = expected.get(url)
        name = entry["original"] if entry else image["raw"]
        kinds = ", ".join(image["kinds"])
        if url in missing_urls:
            checks.check(not image["loaded"] and image["width"] == 0,
                         f"missing by design, does not render: {name} ({kinds}) -> {image['raw']}")
        else:
            checks.check(image["loaded"] and image["width"] > 0 and url.startswith("file://"),
                         f"renders {image['width']}x{image['height']}: {name} ({kinds}) -> {image['raw']}")

    checks.check(set(found) == set(expected),
                 f"the browser found the same {len(found)} image URLs as the manifest lists ({len(expected)}); "
                 f"only in page: {sorted(set(found) - set(expected))}, only in manifest: {sorted(set(expected) - set(found))}")
    checks.check(all(url.startswith("file://") for url in found),
                 "every image reference in the page is a local file")

    # What the document itself shows.
    broken = [e for e in report["elements"] if e["width"] == 0 and e["currentSrc"] not in missing_urls]
    by_design = [e for e in report["elements"] if e["currentSrc"] in missing_urls]
    checks.check(not broken and all(e["complete"] for e in report["elements"]),
                 f"all {len(report['elements'])} <img> elements rendered (naturalWidth > 0) except the "
                 f"{len(by_design)} missing by design; broken: {[e['alt'] for e in broken]}")
    checks.check(len(by_design) == 1 and by_design[0]["width"] == 0,
                 f"the <img> of the image missing by design is counted as missing: {[e['alt'] for e in by_design]}")
    local_backgrounds = [b for b in report["backgrounds"] if 'url("file://' in b["value"]]
    checks.check(len(local_backgrounds) >= 3 and len(local_backgrounds) == len(report["backgrounds"]),
                 f"CSS backgrounds resolve to local files: {[b['element'] for b in local_backgrounds]}")

    # Nothing left the machine.
    remote = [url for url in requests + report["resources"] if not url.startswith(("file:", "data:", "about:"))]
    checks.check(not remote and len(requests) > 0,
                 f"the page made {len(requests)} requests, none of them http(s): {remote}")
    log = NetLog(net_log)
    checks.check(log.event_count > 0 and not log.page_requests,
                 f"the browser's net log ({log.event_count} events) has no http(s) request from web content: "
                 f"{sorted(set(log.page_requests))[:10]}")
    hosts = sorted({urllib.parse.urlsplit(url).netloc for url in log.browser_requests})
    checks.check(not log.wire_events,
                 f"nothing left the machine: no HTTP request was sent and no TLS handshake began "
                 f"(Chromium's own {len(log.browser_requests)} background requests, to {', '.join(hosts) or 'no host'}, "
                 f"all failed to connect): {sorted(set(log.wire_events))}")


if __name__ == "__main__":
    sys.exit(main())
