#!/usr/bin/env python3
"""Does a page localised with `imgcache fetch --device` show, in Chromium at that device and offline,
a local image for every responsive image, and the same one Chromium shows online?

usage: browser_devices.py [--imgcache BIN] [--pages DIR] [--limit N] [--only TEXT ...]
                          [--devices 390x844@3,820x1180@2,1280x800@1] [--work DIR] [--keep]
                          [--jobs 2] [--javascript] [--scrollbars] [--json FILE] [--from-json FILE]
                          [--list N] [--localise-for WxH@R] [--chromium BIN]

For each saved page of DIR (default /work/shared/pages: its base_urls.json gives the URL each page is
served from) that has a srcset attribute or a <picture> (real_pages.py's RESPONSIVE), and for each
device WIDTHxHEIGHT@RATIO (default a phone 390x844@3, a tablet 820x1180@2, a desktop 1280x800@1):

1. Online. catchall_proxy.py --decodable --pages MAP is the web: it serves the page's own bytes at its
   URL, answers every image request with a decodable image (width from hints in the URL), and a
   browser's requests for stylesheets, scripts, fonts and frames with 404 (they fail offline too).
   Headless Chromium, its proxy set to it (--ignore-certificate-errors: the proxy is a man in the
   middle), --force-device-scale-factor=RATIO, loads a wrapper page (a file) holding
   <iframe src=PAGE-URL width=WIDTH height=HEIGHT sandbox="allow-same-origin">, so that the page's
   viewport is the device's (headless windows are at least 500 pixels wide) and its pixel ratio the
   device's. The frame's document is scrolled through its height, the images waited for, and for
   every <img> in it currentSrc, complete and naturalWidth are read (from an isolated world: nothing
   is added to the page).
2. Offline. `imgcache fetch PAGE --base-url URL --out OUT --device WxH@R --proxy PROXY --cacert CA
   --quiet`, then Chromium with networking off (every host fails to resolve, an unusable proxy: the
   flags of Tests/e2e/browser_check.py) opens the same wrapper around OUT/PAGE (a file: URL), and the
   same is read, with every request the frame made (DevTools' Network domain) and the browser's net log.
3. Compared image by image: the <img> elements are matched by document order (imgcache rewrites
   attributes, never adds or removes an element); the responsive ones (a srcset attribute, or a
   <picture> parent, as seen online) are counted. Offline, currentSrc must be a file: URL of a file
   that exists and decodes (naturalWidth > 0) — else *broken* — and never http(s) — else *remote*.
   The file's name is mapped back to the URL imgcache downloaded it from (the manifest's images:
   URL → file name; the proxy's answers differ for every URL, so the name is unique) and compared with
   the online currentSrc (fragments dropped; equal after percent-decoding counts as the same).

The page's scripts are off in both runs (the sandbox has no allow-scripts): saved pages' lazy-loading
scripts would otherwise swap images differently online (their script files are 404) and offline, and
a script that fails differently would make the two runs differ for reasons that are not imgcache's.
With scripts off, Chromium loads loading="lazy" images at once (as the HTML standard says), and
<noscript> content is parsed as markup, so its images are counted too (imgcache localises them).
--javascript runs the pages' inline scripts in both runs instead (their external scripts are 404
online and absent offline). Scrollbars are hidden (as on a phone; --scrollbars shows classic ones).
--localise-for WxH@R is a control: every page is localised for that device whatever device views it,
and the check must then fail.

Prints a table per device and in all: pages, <img> elements, responsive images, how many had a
currentSrc online and how many were shown online (naturalWidth > 0), offline broken and remote, the
same image and a different one, same %, and the http(s) image requests the frame made offline; then
every broken, remote or different image with what it was and what imgcache's manifest says of it.
Exits 1 when a responsive image is broken or remote offline, an http(s) image request was made
offline, fewer than 95% show the same image, the online runs showed no image at all, or a run failed.

Needs python3 (standard library), Chromium, openssl, and for the proxy Python's cryptography and
Pillow >= 11.3 (installed with pip if missing). Runs --jobs page-device pairs at once (default 2), each
with its own proxy. Only ever talks to 127.0.0.1.
"""
import argparse
import concurrent.futures
import html
import importlib.util
import json
import os
import pathlib
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


browser_check = load("imgcache_browser_check", ROOT / "Tests" / "e2e" / "browser_check.py")   # DevToolsPipe, NetLog
real_pages = load("imgcache_real_pages", HERE / "real_pages.py")                             # RESPONSIVE, PROXY_VARS

DEVICES = ("390x844@3", "820x1180@2", "1280x800@1")
DEVICE_NAMES = {"390x844@3": "phone", "820x1180@2": "tablet", "1280x800@1": "desktop"}
SAME_TARGET = 95.0
SCROLL_STEPS = 80          # the frame is scrolled by its height this many times at most
SCROLL_PAUSE = 0.05        # seconds after each step
IMAGE_WAIT = 15.0          # seconds to wait, after scrolling, for every <img> to be complete
LOAD_WAIT = 60.0           # seconds to wait for the wrapper's load event


def parse_device(text):
    size, _, ratio = text.partition("@")
    width, _, height = size.lower().partition("x")
    return int(width), int(height), float(ratio) if "." in ratio else int(ratio)


# MARK: - Chromium

def chromium_arguments(chromium, profile, net_log, device, proxy_port=None, scrollbars=False):
    """browser_check.py's flags (no background traffic, networking off), at the device's pixel ratio, in
    a window big enough for the device's frame, with the frame in the page's process (so that one
    DevTools session sees its requests and can reach its document). With proxy_port: online, through
    the catch-all proxy, and nothing but it (every host but 127.0.0.1 fails to resolve)."""
    width, height, ratio = device
    arguments = []
    for argument in browser_check.chromium_arguments(chromium, profile, net_log):
        if argument.startswith(("--window-size", "--host-resolver-rules", "--proxy-server")) or argument == "about:blank":
            continue
        if argument.startswith("--disable-features="):
            argument += ",IsolateOrigins,site-per-process,IsolateSandboxedIframes"   # one flag: the last one counts
        arguments.append(argument)
    if proxy_port:
        arguments += [f"--proxy-server=http://127.0.0.1:{proxy_port}", "--ignore-certificate-errors",
                      "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]
    else:
        arguments += ["--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9"]
    arguments += [f"--force-device-scale-factor={ratio}", f"--window-size={max(width, 500) + 60},{height + 60}",
                  "--disable-site-isolation-trials", "--disable-quic"]
    if not scrollbars:
        arguments.append("--hide-scrollbars")    # as on a phone: the frame's layout width is the device's
    return arguments + ["about:blank"]
    return arguments


def wrapper_page(path, src, device, javascript):
    width, height, ratio = device
    sandbox = "allow-same-origin allow-scripts" if javascript else "allow-same-origin"
    path.write_text(f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{width}x{height}@{ratio}</title></head>\n'
                    f'<body style="margin:0"><iframe id="device" src="{html.escape(src)}" width="{width}" height="{height}" '
                    f'sandbox="{sandbox}" style="border:0;display:block"></iframe></body></html>\n', encoding="utf-8")
    return path.as_uri()


FRAME_STATE = """(() => { const e = document.scrollingElement || document.documentElement;
  return {href: location.href, width: innerWidth, height: innerHeight, dpr: devicePixelRatio,
          scrollHeight: e ? e.scrollHeight : 0, scrollY: scrollY, ready: document.readyState,
          pending: [...document.images].filter((i) => !i.complete).length}; })()"""

COLLECT = r"""(() => {
  // The URLs a srcset names (the HTML standard's parser, without the descriptors' details).
  const srcsetURLs = (value) => {
    const urls = [];
    let i = 0;
    while (value && i < value.length) {
      while (i < value.length && /[\s,]/.test(value[i])) i++;
      let j = i;
      while (j < value.length && !/\s/.test(value[j])) j++;
      let url = value.slice(i, j);
      if (url.endsWith(',')) url = url.replace(/,+$/, '');
      else { let depth = 0; while (j < value.length && !(value[j] === ',' && depth === 0)) { if (value[j] === '(') depth++; if (value[j] === ')') depth--; j++; } }
      if (url) urls.push(url);
      i = j;
    }
    return urls;
  };
  const absolute = (url) => { try { return new URL(url, document.baseURI).href; } catch (e) { return url; } };
  const images = [...document.querySelectorAll('img')].map((img, index) => {
    const parent = img.parentElement;
    const picture = !!parent && parent.tagName === 'PICTURE';
    const r = {index, responsive: img.hasAttribute('srcset') || picture, currentSrc: img.currentSrc,
               complete: img.complete, naturalWidth: img.naturalWidth};
    if (r.responsive) {
      r.src = img.getAttribute('src'); r.srcset = img.getAttribute('srcset'); r.sizes = img.getAttribute('sizes');
      r.loading = img.getAttribute('loading'); r.noscript = !!img.closest('noscript');
      r.layoutWidth = Math.round(img.getBoundingClientRect().width);
      r.sources = picture ? [...parent.children].filter((c) => c.tagName === 'SOURCE').map((s) => ({
        media: s.getAttribute('media'), type: s.getAttribute('type'), srcset: s.getAttribute('srcset'),
        sizes: s.getAttribute('sizes')})) : null;
      const named = [img.getAttribute('src'), ...srcsetURLs(img.getAttribute('srcset'))];
      for (const s of r.sources || []) named.push(...srcsetURLs(s.srcset));
      r.candidates = named.filter((u) => u && u.trim()).map((u) => absolute(u.trim()));
    }
    return r;
  });
  return {href: location.href, title: document.title, images};
})()"""


def evaluate(browser, session, context, expression, timeout=60):
    result = browser.send("Runtime.evaluate", {"expression": expression, "contextId": context, "returnByValue": True},
                          session=session, timeout=timeout)
    if "exceptionDetails" in result:
        raise RuntimeError(f"evaluation failed: {result['exceptionDetails'].get('text')} "
                           f"{result['exceptionDetails'].get('exception', {}).get('description', '')[:300]}")
    return result["result"].get("value")


def view_in_frame(arguments, log_path, wrapper_url):
    """Loads the wrapper, scrolls its frame's document through its height, waits for its images, and
    reads them (from an isolated world: the frame's own scripts may be off, and the page is not
    touched). The frame's timers do not run without scripts, so the waiting is done from here.
    Chromium may put the frame in a process of its own (a web page in a file: page does, whatever the
    site isolation flags): frames are attached as they start (Target.setAutoAttach, paused until their
    Network domain is on), so that their requests are seen from the first.
    → {state, images, title, requests: [(url, type)] made in the frame, load_event: bool}"""
    browser = browser_check.DevToolsPipe(arguments, log_path)
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Network", "Runtime"):
            browser.send(f"{domain}.enable", session=session)
        browser.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True},
                     session=session)
        browser.send("Page.navigate", {"url": wrapper_url}, session=session)
        children = {}         # session → target info, of the frames in processes of their own
        seen = 0
        load_event = False
        deadline = time.monotonic() + LOAD_WAIT
        while True:
            while seen < len(browser.events):
                event = browser.events[seen]
                seen += 1
                method = event.get("method")
                if method == "Target.attachedToTarget" and event.get("sessionId") == session:
                    child, info = event["params"]["sessionId"], event["params"]["targetInfo"]
                    if info.get("type") == "iframe":
                        children[child] = info
                        for domain in ("Page", "Network", "Runtime"):
                            browser.send(f"{domain}.enable", session=child)
                    browser.send("Runtime.runIfWaitingForDebugger", session=child)
                elif method == "Page.loadEventFired" and event.get("sessionId") == session:
                    load_event = True
            if load_event or time.monotonic() >= deadline:
                break
            try:
                browser.events.append(browser._next(min(deadline, time.monotonic() + 0.5)))
            except (queue.Empty, TimeoutError):
                pass
        # The wrapper's own frame: a frame in a process of its own whose parent is the wrapper, else the
        # wrapper's child in its process (the frames attached are then the page's own frames').
        own = [(child, info) for child, info in children.items() if info.get("parentFrameId") == target]
        if len(own) > 1:
            raise RuntimeError(f"the wrapper has {len(own)} frames, not 1")
        if own:
            frame_session, info = own[0]
            frame_id = info["targetId"]
        else:
            frame_session = session
            frames = browser.send("Page.getFrameTree", session=session)["frameTree"].get("childFrames") or []
            if len(frames) != 1:
                raise RuntimeError(f"the wrapper has {len(frames)} frames, not 1")
            frame_id = frames[0]["frame"]["id"]
        context = browser.send("Page.createIsolatedWorld", {"frameId": frame_id, "worldName": "browser_devices"},
                               session=frame_session)["executionContextId"]
        state = evaluate(browser, frame_session, context, FRAME_STATE)
        y = steps = 0
        while steps < SCROLL_STEPS and y < state["scrollHeight"]:
            y += max(1, state["height"])
            steps += 1
            state = evaluate(browser, frame_session, context, f"(() => {{ scrollTo(0, {y}); return {FRAME_STATE}; }})()")
            time.sleep(SCROLL_PAUSE)
        deadline = time.monotonic() + IMAGE_WAIT
        while state["pending"] and time.monotonic() < deadline:
            time.sleep(0.1)
            state = evaluate(browser, frame_session, context, FRAME_STATE)
        state["scrollSteps"] = steps
        state["process"] = "own" if own else "shared"
        report = evaluate(browser, frame_session, context, COLLECT)
        # Every request but the wrapper's own: the page's, and those of the frames in it.
        requests = [(e["params"]["request"]["url"], e["params"].get("type", ""))
                    for e in browser.events
                    if e.get("method") == "Network.requestWillBeSent" and e["params"].get("frameId") != target]
        return {"state": state, "images": report["images"], "title": report["title"], "requests": requests,
                "load_event": load_event}
    finally:
        browser.close()


# MARK: - The proxy

class Proxy:
    """catchall_proxy.py --decodable --pages MAP: one per job slot (the map names the slot's current page)."""

    def __init__(self, work, ca_cert, ca_key, index):
        self.folder = work / f"proxy-{index}"
        self.folder.mkdir(parents=True, exist_ok=True)
        self.map = self.folder / "pages.json"
        self.map.write_text("{}")
        self.log = self.folder / "proxy.log"
        self.err = open(self.folder / "proxy.err", "wb")
        self.process = subprocess.Popen(
            [sys.executable, str(HERE / "catchall_proxy.py"), "--ca-cert", str(ca_cert), "--ca-key", str(ca_key),
             "--log", str(self.log), "--certs", str(self.folder / "certs"), "--decodable", "--pages", str(self.map)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self.err, text=True)
        line = self.process.stdout.readline()
        if not line.startswith("ready "):
            self.stop()
            raise RuntimeError(f"catchall_proxy.py did not start: {(self.folder / 'proxy.err').read_text()[-500:]}")
        self.port = int(line.split()[1])

    def serve(self, url, page):
        temporary = self.map.with_suffix(".tmp")
        temporary.write_text(json.dumps({url: str(page)}))
        os.replace(temporary, self.map)      # a new inode: the proxy reads the map again

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.err.close()


def make_ca(folder):
    folder.mkdir(parents=True, exist_ok=True)
    commands = [
        ["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "ca.key"],
        ["openssl", "req", "-x509", "-new", "-key", "ca.key", "-sha256", "-days", "7",
         "-subj", "/CN=imgcache browser_devices test CA", "-addext", "basicConstraints=critical,CA:TRUE",
         "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-out", "ca.pem"],
    ]
    for command in commands:
        subprocess.run(command, cwd=folder, check=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    return folder / "ca.pem", folder / "ca.key"


def ensure_python_packages():
    probe = "import cryptography; from PIL import features; assert features.check('avif') and features.check('webp')"
    if subprocess.run([sys.executable, "-c", probe], stderr=subprocess.DEVNULL).returncode == 0:
        return
    print("installing cryptography and Pillow >= 11.3 (pip) for catchall_proxy.py --decodable…", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "cryptography", "pillow>=11.3"], check=True)


# MARK: - One page at one device

def url_key(url):
    """A URL as compared: no fragment, scheme and host lower-case, path and query percent-decoded."""
    parts = urllib.parse.urlsplit(url)
    return (parts.scheme.lower(), parts.netloc.lower(), urllib.parse.unquote(parts.path or "/"),
            urllib.parse.unquote(parts.query))


def strip_fragment(url):
    return url.split("#", 1)[0]


STOP = threading.Event()     # set by SIGINT or SIGTERM: the runs not yet started are skipped


def run_job(options, job, proxies, work):
    page, base_url, device_text = job
    if STOP.is_set():
        return {"page": page, "url": base_url, "device": device_text, "error": "not run: stopped", "seconds": 0}
    device = parse_device(device_text)
    proxy = proxies.get()
    started = time.monotonic()
    folder = work / "jobs" / f"{page.replace('/', '__')}@{device_text}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    record = {"page": page, "url": base_url, "device": device_text, "error": None}
    try:
        path = pathlib.Path(options.pages) / page
        # 1. Online, through the proxy, which serves the page at its URL.
        proxy.serve(base_url, path.resolve())
        online = view_in_frame(chromium_arguments(options.chromium, folder / "profile-online", folder / "netlog-online.json",
                                                  device, proxy.port, options.scrollbars),
                               folder / "chromium-online.log",
                               wrapper_page(folder / "online.html", base_url, device, options.javascript))
        # 2. imgcache fetch --device, then offline.
        out = folder / "out"
        env = {k: v for k, v in os.environ.items() if k not in real_pages.PROXY_VARS}
        command = [options.imgcache, "fetch", str(path), "--base-url", base_url, "--out", str(out),
                   "--device", options.localise_for or device_text, "--proxy", f"http://127.0.0.1:{proxy.port}", "--cacert", str(options.ca_cert),
                   "--quiet"]
        fetch = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=env, timeout=options.timeout)
        record["fetch_exit"] = fetch.returncode
        record["fetch_stderr"] = fetch.stderr.decode("utf-8", "replace")[-2000:]
        if fetch.returncode not in (0, 2):
            raise RuntimeError(f"imgcache fetch exited {fetch.returncode}: {record['fetch_stderr'][-300:]}")
        manifest = json.loads((out / "imgcache-manifest.json").read_text())
        local_page = out / path.name
        net_log = folder / "netlog-offline.json"
        offline = view_in_frame(chromium_arguments(options.chromium, folder / "profile-offline", net_log, device,
                                                   scrollbars=options.scrollbars),
                                folder / "chromium-offline.log",
                                wrapper_page(folder / "offline.html", local_page.as_uri(), device, options.javascript))
        log = browser_check.NetLog(net_log)
        record["netlog_events"] = log.event_count
        record["wire_events"] = sorted(set(log.wire_events))
        record.update(compare(online, offline, out, manifest, device))
    except Exception as error:
        record["error"] = f"{type(error).__name__}: {error}"
    finally:
        proxies.put(proxy)
    record["seconds"] = round(time.monotonic() - started, 1)
    if not options.keep:
        shutil.rmtree(folder, ignore_errors=True)
    return record


def compare(online, offline, out, manifest, device):
    width, height, ratio = device
    result = {"frames": {}, "images": [], "requests": {}}
    for name, run in (("online", online), ("offline", offline)):
        s = run["state"]
        result["frames"][name] = {"href": s["href"], "width": s["width"], "height": s["height"], "dpr": s["dpr"],
                                  "scrollHeight": s["scrollHeight"], "scrollSteps": s["scrollSteps"], "process": s["process"],
                                  "pending": s["pending"], "load_event": run["load_event"], "img": len(run["images"])}
        if (s["width"], s["height"], s["dpr"]) != (width, height, ratio):
            raise RuntimeError(f"the {name} frame is {s['width']}x{s['height']}@{s['dpr']}, not {width}x{height}@{ratio}")
    by_name = {}
    for url, name in manifest.get("images", {}).items():
        by_name.setdefault(name, []).append(url)
    references = {}
    for page in manifest.get("pages", []):
        for reference in page.get("references", []):
            if reference.get("url"):
                references.setdefault(strip_fragment(reference["url"]), reference)
    out_uri = out.resolve().as_uri() + "/"
    if len(online["images"]) != len(offline["images"]):
        result["img_count_differs"] = [len(online["images"]), len(offline["images"])]
    for on, off in zip(online["images"], offline["images"]):
        on_src = strip_fragment(on["currentSrc"])
        off_src = strip_fragment(off["currentSrc"])
        entry = {"index": on["index"], "responsive": on["responsive"], "online": on_src,
                 "online_width": on["naturalWidth"], "offline": off_src, "offline_width": off["naturalWidth"],
                 "offline_url": None}
        scheme = urllib.parse.urlsplit(off_src).scheme.lower()
        if scheme in ("http", "https"):
            entry["offline_state"] = "remote"
        elif scheme == "file":
            file = pathlib.Path(urllib.request.url2pathname(urllib.parse.urlsplit(off_src).path))
            urls = by_name.get(file.name, []) if off_src.startswith(out_uri + "images/") else []
            if len(urls) == 1:
                entry["offline_url"] = urls[0]
            elif urls:
                entry["offline_url"] = next((u for u in urls if url_key(u) == url_key(on_src)), urls[0])
            if not file.is_file():
                entry["offline_state"] = "broken"
                entry["why"] = "no such file"
            elif off["naturalWidth"] == 0:
                entry["offline_state"] = "broken"
                entry["why"] = "does not decode"
            else:
                entry["offline_state"] = "local"
        elif not off_src:
            entry["offline_state"] = "broken" if on_src else "none"
            entry["why"] = "no currentSrc offline"
        else:    # data:, blob:, about:
            entry["offline_state"] = "local" if off["naturalWidth"] > 0 else "broken"
            entry["offline_url"] = off_src
        if entry["offline_url"] is not None:
            if entry["offline_url"] == on_src:
                entry["same"] = "same"
            elif urllib.parse.urlsplit(entry["offline_url"]).scheme in ("http", "https") and \
                    url_key(entry["offline_url"]) == url_key(on_src):
                entry["same"] = "same after percent-decoding"
            else:
                entry["same"] = "different"
        elif not on_src and not off_src:
            entry["same"] = "neither shows one"
        else:
            entry["same"] = "different"
        if on["responsive"]:
            entry["markup"] = {k: on.get(k) for k in ("src", "srcset", "sizes", "loading", "noscript", "layoutWidth",
                                                      "sources")}
            reference = references.get(on_src)
            entry["online_in_manifest"] = ({"status": reference.get("status"), "shownOn": reference.get("shownOn"),
                                            "original": reference.get("original")} if reference else None)
        result["images"].append(entry)
    # What the responsive images offline still name that is remote (imgcache leaves what it could not
    # fetch as it was), and the http(s) requests the frame made offline: an image request for one of
    # those URLs is a responsive image's; the others are not (an <img> or CSS image imgcache does not
    # localise, e.g. SVG, not in its default --extensions).
    responsive_urls = set()
    for i, off in enumerate(offline["images"]):
        if i < len(online["images"]) and online["images"][i]["responsive"]:
            remote = sorted({u for u in off.get("candidates") or []
                             if urllib.parse.urlsplit(u).scheme.lower() in ("http", "https")})
            responsive_urls.update(strip_fragment(u) for u in remote)
            result["images"][i]["remote_candidates"] = remote
    for url, kind in offline["requests"]:
        if urllib.parse.urlsplit(url).scheme.lower() in ("http", "https", "ws", "wss"):
            if kind == "Image":
                kind = "Image (responsive)" if strip_fragment(url) in responsive_urls else "Image (other)"
            result["requests"].setdefault(kind or "Other", []).append(url)
    return result


# MARK: - The report

def summarise(records):
    """→ counts for a list of records (one device, or all)."""
    c = dict.fromkeys(("pages", "failed", "img", "responsive", "online_src", "online_shown", "compared", "same",
                       "same_decoded", "different", "neither", "broken", "remote", "all_broken", "all_remote",
                       "remote_image_requests", "remote_other_images", "remote_other_requests", "wire", "noscript",
                       "remote_candidates", "broken_both", "compared_web", "same_web"), 0)
    c["pages"] = len({r["page"] for r in records})
    for r in records:
        if r["error"]:
            c["failed"] += 1
            continue
        c["img"] += len(r["images"])
        c["wire"] += len(r["wire_events"])
        for kind, urls in r["requests"].items():
            key = {"Image (responsive)": "remote_image_requests", "Image (other)": "remote_other_images"}.get(
                kind, "remote_other_requests")
            c[key] += len(urls)
        for e in r["images"]:
            c["all_broken"] += e["offline_state"] == "broken"
            c["all_remote"] += e["offline_state"] == "remote"
            if not e["responsive"]:
                continue
            c["responsive"] += 1
            c["noscript"] += bool(e["markup"].get("noscript"))
            c["online_src"] += bool(e["online"])
            c["online_shown"] += e["online_width"] > 0
            # Broken offline counts when online showed it; a page's own placeholder (e.g. srcset="data:,1w",
            # waiting for a lazy-loading script) that shows nothing online either is counted apart.
            c["broken"] += e["offline_state"] == "broken" and e["online_width"] > 0
            c["broken_both"] += e["offline_state"] == "broken" and e["online_width"] == 0
            c["remote"] += e["offline_state"] == "remote"
            c["remote_candidates"] += bool(e.get("remote_candidates"))
            if e["same"] == "neither shows one":
                c["neither"] += 1
                continue
            c["compared"] += 1
            web = urllib.parse.urlsplit(e["online"]).scheme.lower() in ("http", "https")
            c["compared_web"] += web
            if e["same"].startswith("same"):
                c["same"] += 1
                c["same_web"] += web
                c["same_decoded"] += e["same"] != "same"
            else:
                c["different"] += 1
    c["same_pct"] = 100.0 * c["same"] / c["compared"] if c["compared"] else 0.0
    c["same_web_pct"] = 100.0 * c["same_web"] / c["compared_web"] if c["compared_web"] else 0.0
    return c


COLUMNS = (("device", "device"), ("pages", "pages"), ("failed", "runs failed"), ("img", "<img>"),
           ("responsive", "responsive"), ("online_src", "online: currentSrc"), ("online_shown", "online: shown"),
           ("broken", "offline broken"), ("remote", "offline remote"), ("same", "same"), ("different", "different"),
           ("same_pct", "same %"), ("remote_image_requests", "http(s) requests for them offline"))


def table(rows):
    header = [title for _, title in COLUMNS]
    lines = [[(f"{row[key]:.1f}" if key == "same_pct" else str(row[key])) for key, _ in COLUMNS] for row in rows]
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(header)]
    out = ["| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |",
           "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += ["| " + " | ".join(v.ljust(w) for v, w in zip(line, widths)) + " |" for line in lines]
    return "\n".join(out)


def shorten(text, n=160):
    text = "" if text is None else str(text)
    return text if len(text) <= n else text[:n - 1] + "…"


def describe(record, e):
    m = e.get("markup") or {}
    lines = [f"  {record['device']}  {record['page']}  img #{e['index']}: {e['offline_state']}"
             + (f" ({e['why']})" if e.get("why") else "") + f", {e['same']}",
             f"      online : {shorten(e['online'], 200)} ({e['online_width']} px)",
             f"      offline: {shorten(e['offline'], 200)} ({e['offline_width']} px)"
             + (f"\n             = {shorten(e['offline_url'], 200)}" if e.get("offline_url") and e["offline_url"] != e["offline"] else "")]
    if m:
        lines.append(f"      markup : srcset={shorten(m.get('srcset'))!r} sizes={shorten(m.get('sizes'), 80)!r} "
                     f"src={shorten(m.get('src'), 80)!r} loading={m.get('loading')} noscript={m.get('noscript')} "
                     f"layout width={m.get('layoutWidth')}")
        for s in m.get("sources") or []:
            lines.append(f"      source : media={s['media']!r} type={s['type']!r} srcset={shorten(s['srcset'])!r}"
                         + (f" sizes={shorten(s['sizes'], 80)!r}" if s.get("sizes") else ""))
        lines.append(f"      manifest for the online URL: {e.get('online_in_manifest')}")
    return "\n".join(lines)


def report(records, devices, options):
    rows = []
    for device in devices:
        row = summarise([r for r in records if r["device"] == device])
        row["device"] = f"{DEVICE_NAMES.get(device, 'device')} {device}"
        rows.append(row)
    total = summarise(records)
    total["device"] = "all"
    rows.append(total)
    print()
    print(table(rows))
    print()
    print(f"Responsive images online: {total['online_src']} of {total['responsive']} had a currentSrc, "
          f"{total['online_shown']} were shown (naturalWidth > 0); {total['neither']} had none online or offline; "
          f"{total['noscript']} were in <noscript>; {total['same_decoded']} counted the same only after percent-decoding.")
    print(f"Compared: {total['compared']} responsive images with a currentSrc online; {total['compared_web']} of them "
          f"an http(s) image (the rest a data: URL, e.g. a lazy-loading placeholder), the same offline for "
          f"{total['same_web']} ({total['same_web_pct']:.1f}%).")
    for row in rows[:-1]:
        if row["compared_web"] and row["same_web_pct"] < SAME_TARGET:
            print(f"  {row['device']}: the same http(s) image for {row['same_web_pct']:.1f}%")
    print(f"Responsive images shown neither online nor offline (naturalWidth 0 in both; not counted as broken): "
          f"{total['broken_both']}.")
    print(f"Responsive images that still name a remote URL offline (in src, srcset or a source): "
          f"{total['remote_candidates']}.")
    print(f"All <img> elements offline, responsive or not: {total['all_broken']} broken, {total['all_remote']} remote. "
          f"The frames' http(s) requests offline: {total['remote_image_requests']} for responsive images, "
          f"{total['remote_other_images']} for other images, {total['remote_other_requests']} for other things "
          f"(stylesheets, scripts, frames: left as they were; they fail). Kinds of network activity in the offline "
          f"browsers' net logs: {total['wire']}.")
    failed = [r for r in records if r["error"]]
    if failed:
        print(f"\nRuns that failed ({len(failed)}):")
        for r in failed:
            print(f"  {r['device']}  {r['page']}: {r['error']}")
    counts = [r for r in records if not r["error"] and r.get("img_count_differs")]
    if counts:
        print(f"\nPages whose <img> count differs online and offline ({len(counts)}; matched by order up to the shorter):")
        for r in counts:
            print(f"  {r['device']}  {r['page']}: {r['img_count_differs']}")
    groups = (("broken offline", lambda e: e["responsive"] and e["offline_state"] == "broken" and e["online_width"] > 0),
              ("shown neither online nor offline", lambda e: e["responsive"] and e["offline_state"] == "broken"
               and e["online_width"] == 0),
              ("remote offline", lambda e: e["responsive"] and e["offline_state"] == "remote"),
              ("a different image offline", lambda e: e["responsive"] and e["offline_state"] not in ("broken", "remote")
               and e["same"] == "different"))
    for title, test in groups:
        hits = [(r, e) for r in records if not r["error"] for e in r["images"] if test(e)]
        if hits:
            print(f"\nResponsive images {title} ({len(hits)}):")
            for r, e in hits[:options.list]:
                if title.startswith("shown neither"):    # the page's own: one line each
                    print(f"  {r['device']}  {r['page']}  img #{e['index']}: online {shorten(e['online'], 80)}, "
                          f"offline {shorten(e['offline'], 80)}")
                else:
                    print(describe(r, e))
            if len(hits) > options.list:
                print(f"  … and {len(hits) - options.list} more (--list N, or --json FILE for all)")
    for kind in ("Image (responsive)", "Image (other)"):
        requests = [(r, url) for r in records if not r["error"] for url in r["requests"].get(kind, [])]
        if requests:
            print(f"\nhttp(s) requests offline, {kind[7:-1]} images ({len(requests)}):")
            for r, url in requests[:options.list]:
                print(f"  {r['device']}  {r['page']}: {shorten(url, 200)}")
    reasons = []
    if failed:
        reasons.append(f"{len(failed)} runs failed")
    if total["broken"] or total["remote"]:
        reasons.append(f"{total['broken']} broken and {total['remote']} remote responsive images offline")
    if total["remote_image_requests"]:
        reasons.append(f"{total['remote_image_requests']} http(s) requests for responsive images offline")
    if total["wire"]:
        reasons.append("an offline browser sent something over the network")
    if total["online_shown"] == 0 or total["compared"] == 0:
        reasons.append("the online runs showed no responsive image: nothing was compared")
    for row in rows:
        if row["compared"] and row["same_pct"] < SAME_TARGET:
            reasons.append(f"{row['device']}: the same image for {row['same_pct']:.1f}% (< {SAME_TARGET:.0f}%)")
    print()
    if reasons:
        print("FAIL: " + "; ".join(reasons))
        return 1
    print(f"PASS: 0 broken, 0 remote, the same image for {total['same_pct']:.1f}% of {total['compared']} responsive images")
    return 0


def fingerprint(path):
    """The executable's size, time and digest: the run says which build it checked, and whether it was
    replaced while it ran."""
    import hashlib
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    stat = os.stat(path)
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stat.st_mtime))
    return f"{stat.st_size} bytes, {stamp}, sha256 {digest.hexdigest()[:16]}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--imgcache", default=os.environ.get("IMGCACHE_BIN", "/work/bench-51/imgcache-debug"),
                        help="the imgcache executable (default $IMGCACHE_BIN, else /work/bench-51/imgcache-debug)")
    parser.add_argument("--pages", default=str(ROOT.parent / "shared" / "pages"),
                        help="saved pages with base_urls.json (default ../shared/pages from the repository root)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N responsive pages (by file name)")
    parser.add_argument("--only", action="append", default=[], help="only pages whose file name contains TEXT (repeatable)")
    parser.add_argument("--devices", default=",".join(DEVICES), help="comma-separated WIDTHxHEIGHT@RATIO")
    parser.add_argument("--work", help="working folder (default: a temp folder, removed unless --keep)")
    parser.add_argument("--keep", action="store_true", help="keep each run's output, wrappers, profiles, logs")
    parser.add_argument("--jobs", type=int, default=2, help="page-device pairs at once (default 2)")
    parser.add_argument("--javascript", action="store_true", help="run the pages' scripts (default: off in both runs)")
    parser.add_argument("--json", help="write every run's record (every <img>) to FILE")
    parser.add_argument("--list", type=int, default=200, help="list at most N images per group (default 200)")
    parser.add_argument("--timeout", type=float, default=300, help="imgcache fetch is stopped after S seconds")
    parser.add_argument("--scrollbars", action="store_true",
                        help="classic scrollbars, as on a desktop (default: hidden, as on a phone)")
    parser.add_argument("--localise-for", metavar="WxH@R",
                        help="a control: localise every page for this device whatever device views it (the check "
                             "should then fail on the other devices)")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    parser.add_argument("--from-json", metavar="FILE", help="print the report of a run saved with --json; run nothing")
    options = parser.parse_args()
    devices = [d.strip() for d in options.devices.split(",") if d.strip()]
    for d in devices:
        parse_device(d)
    if options.from_json:
        records = json.loads(pathlib.Path(options.from_json).read_text())
        devices = [d for d in devices if any(r["device"] == d for r in records)] + \
                  sorted({r["device"] for r in records} - set(devices))
        print(f"browser_devices: the {len(records)} runs saved in {options.from_json}")
        return report(records, devices, options)
    options.imgcache = str(pathlib.Path(options.imgcache).resolve())

    base_urls = json.loads((pathlib.Path(options.pages) / "base_urls.json").read_text())
    pages = [p for p in sorted(base_urls)
             if real_pages.RESPONSIVE.search((pathlib.Path(options.pages) / p).read_bytes())
             and (not options.only or any(o in p for o in options.only))]
    if options.limit:
        pages = pages[:options.limit]
    if not pages:
        print("no responsive page to check", file=sys.stderr)
        return 1
    ensure_python_packages()
    work = pathlib.Path(options.work or tempfile.mkdtemp(prefix="imgcache-browser-devices-")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    options.ca_cert, ca_key = make_ca(work / "tls")
    jobs = [(p, base_urls[p], d) for p in pages for d in devices]
    build = fingerprint(options.imgcache)
    print(f"{len(pages)} responsive pages x {len(devices)} devices = {len(jobs)} runs, {options.jobs} at once; "
          f"imgcache {options.imgcache}; work {work}; page scripts {'on' if options.javascript else 'off'}", file=sys.stderr)
    def stop(signum, _frame):
        STOP.set()
        print(f"signal {signum}: finishing the runs under way, skipping the rest", file=sys.stderr)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    proxies = queue.Queue()
    started_proxies = []
    records = []
    started = time.monotonic()
    try:
        for i in range(max(1, options.jobs)):
            proxy = Proxy(work, options.ca_cert, ca_key, i)
            started_proxies.append(proxy)
            proxies.put(proxy)
        lock = threading.Lock()
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
            futures = [pool.submit(run_job, options, job, proxies, work) for job in jobs]
            for future in concurrent.futures.as_completed(futures):
                r = future.result()
                with lock:
                    records.append(r)
                    if r["error"]:
                        line = f"FAILED: {r['error'][:300]}"
                    else:
                        c = summarise([r])
                        line = (f"{c['responsive']} responsive, {c['online_shown']} shown online, {c['same']} same, "
                                f"{c['different']} different, {c['broken']} broken, {c['remote']} remote")
                    print(f"[{len(records)}/{len(jobs)}] {r['device']} {r['page']}: {line} ({r['seconds']} s)",
                          file=sys.stderr, flush=True)
    finally:
        for proxy in started_proxies:
            proxy.stop()
    records.sort(key=lambda r: (r["page"], devices.index(r["device"])))
    build_after = fingerprint(options.imgcache)
    if options.json:
        pathlib.Path(options.json).write_text(json.dumps(records, indent=1))
    print(f"browser_devices: {len(jobs)} runs in {time.monotonic() - started:.0f} s; imgcache {options.imgcache}; "
          f"devices {', '.join(devices)}; page scripts {'on' if options.javascript else 'off'}"
          + ("; classic scrollbars" if options.scrollbars else "")
          + (f"; CONTROL: every page localised for {options.localise_for}" if options.localise_for else ""))
    print(f"imgcache build: {build}")
    if build_after != build:
        print(f"WARNING: the imgcache executable was replaced during the run (now {build_after}): "
              f"the runs did not all check the same build")
    status = report(records, devices, options)
    if options.keep:
        print(f"kept: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 130 if STOP.is_set() else status


if __name__ == "__main__":
    sys.exit(main())
