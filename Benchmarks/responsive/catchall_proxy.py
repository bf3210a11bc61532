#!/usr/bin/env python3
"""A catch-all HTTP proxy on 127.0.0.1 that answers every request with a made-up image: the responsive
benchmark's stand-in for the whole web when it localises real saved pages (run.sh --real-pages).

usage: catchall_proxy.py --ca-cert CA.pem --ca-key CA.key --log LOG [--port 0] [--certs DIR]
                         [--decodable] [--pages MAP.json]

Listens on 127.0.0.1 only and connects nowhere: nothing leaves the machine.
- a plain-http GET (absolute-form, `GET http://host/path HTTP/1.1`) is answered at once;
- an HTTPS `CONNECT host:port` is answered 200, then the proxy is the man in the middle: it speaks TLS
  to the client with a certificate for `host` (a DNS name or an IP address) made on the fly and signed
  by the throwaway CA (--ca-cert/--ca-key, EC), one key for every host, and answers the GETs inside.
Every GET or HEAD gets 200 and an image (other methods 405), over keep-alive HTTP/1.1:
- its type follows the URL's extension (.jpg/.jpeg/.jfif, .png, .gif, .webp, .avif, .svg), else a
  `fm=`/`format=` query parameter, else the Accept header (image/avif, then image/webp), else JPEG;
- its width follows the first width hint in the URL: a `w=`, `width=`, `imwidth=` query parameter, or
  `-640w`, `_640x` / `640x480`, `/640/` in the path (16-4096; a /YYYY/ between 1990 and 2039 is a year,
  not a width); the height is 2/3 of it and the bytes are in proportion to the pixels, as
  make_site.py's images are (0.25 byte a pixel for JPEG, 0.15 WebP, 0.10 AVIF, 0.5 PNG and GIF);
- without a hint, about 30 KB (400x300, each type padded to 30,000 bytes).
Each answer's bytes are distinct (the URL's digest is written in its padding). The makers are
make_site.py's (a valid JPEG, PNG or GIF of that size; AVIF and WebP files with valid magic bytes).

Two options for a browser behind the proxy (browser_devices.py); the benchmark (run.sh) uses neither:
- --decodable: AVIF and WebP answers are real images a browser decodes (make_site.py's are not): one
  colour, the same width and height, encoded with Pillow (>= 11.3, for AVIF; made once per type and
  size), then padded to the same byte size as before — WebP as the extended format (VP8X with the XMP
  flag, the image, an XMP chunk of padding), AVIF with a top-level `free` box after the file — so the
  bytes stay in proportion to the pixels. The other types are unchanged (already decodable).
- --pages MAP.json: {page URL: file}: a GET for one of those URLs (fragment dropped, host lower-cased,
  an empty path taken as /) is answered with that file's bytes as text/html, with no charset (as a
  browser opening the file from disk sees it); the map is read again whenever the file changes. And a
  browser's request for anything but an image — `Sec-Fetch-Dest` other than image or empty, or without
  it (plain http) an Accept that asks for text/html or text/css first — is answered 404, so that a
  page's stylesheets, scripts, fonts and frames fail online as they do offline.

Prints `ready PORT` on standard output once listening. Writes one line per answered request to LOG
*before* sending the body (so a client that has exited has all its lines in): scheme, host, method,
status, content type, body bytes, width and the hint it came from (`640 w=`, `640 -Nw`, `640 /N/`, or -),
URL — tab-separated.
"""
import argparse
import datetime
import hashlib
import importlib.util
import ipaddress
import json
import os
import re
import signal
import socketserver
import ssl
import struct
import sys
import tempfile
import threading
import urllib.parse

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("responsive_make_site", os.path.join(HERE, "make_site.py"))
site = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(site)

DEFAULT_SIZE = 30_000
DEFAULT_DIMS = (400, 300)
EXTENSIONS = {"jpg": "jpg", "jpeg": "jpg", "jfif": "jpg", "pjpeg": "jpg", "png": "png", "gif": "gif",
              "webp": "webp", "avif": "avif", "svg": "svg"}
MIME = {"jpg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp",
        "avif": "image/avif", "svg": "image/svg+xml"}
WIDTH_PARAMS = ("w", "width", "imwidth")
PATH_HINTS = (("-Nw", re.compile(r"-(\d{2,4})w(?![a-z])", re.I)), ("_Nx", re.compile(r"_(\d{2,4})x", re.I)),
              ("NxM", re.compile(r"(?<![0-9])(\d{2,4})x\d{2,4}(?![0-9])", re.I)), ("/N/", re.compile(r"/(\d{2,4})/")))


def width_hint(parsed):
    """→ (width, the hint it came from: name= or one of PATH_HINTS' names), or (None, "-")"""
    query = urllib.parse.parse_qs(parsed.query)
    for name in WIDTH_PARAMS:
        for value in query.get(name, []):
            m = re.match(r"\d+", value)
            if m and 16 <= int(m.group()) <= 4096:
                return int(m.group()), f"{name}="
    for how, pattern in PATH_HINTS:
        for m in pattern.finditer(parsed.path):
            w = int(m.group(1))
            if how == "/N/" and 1990 <= w <= 2039:
                continue
            if 16 <= w <= 4096:
                return w, how
    return None, "-"


def image_kind(parsed, accept):
    ext = parsed.path.rsplit("/", 1)[-1].rsplit(".", 1)
    if len(ext) == 2 and ext[1].lower() in EXTENSIONS:
        return EXTENSIONS[ext[1].lower()]
    query = urllib.parse.parse_qs(parsed.query)
    for name in ("fm", "format"):
        for value in query.get(name, []):
            if value.lower() in EXTENSIONS:
                return EXTENSIONS[value.lower()]
    accept = (accept or "").lower()
    if "image/avif" in accept:
        return "avif"
    if "image/webp" in accept:
        return "webp"
    return "jpg"


DECODABLE = {}      # (kind, width, height) → Pillow's encoding of a one-colour image
DECODABLE_LOCK = threading.Lock()


def decodable_image(kind, width, height, size, tag):
    """A WebP or AVIF that decodes to width x height, of `size` bytes (or the least it needs, if more)."""
    key = (kind, width, height)
    with DECODABLE_LOCK:
        encoded = DECODABLE.get(key)
    if encoded is None:
        import io
        from PIL import Image
        out = io.BytesIO()
        image = Image.new("RGB", (width, height), (128, 140, 152))
        if kind == "webp":
            image.save(out, "WEBP", quality=50, method=0)
        else:
            image.save(out, "AVIF", quality=30, speed=10)
        encoded = out.getvalue()
        with DECODABLE_LOCK:
            DECODABLE[key] = encoded
    if kind == "avif":
        rest = max(8 + len(tag), size - len(encoded))
        return encoded + struct.pack(">I", rest) + b"free" + site._padding(tag, rest - 8)
    # WebP: the simple file's image chunk (VP8 or VP8L) inside the extended format, then XMP padding.
    image_chunk = encoded[12:]
    vp8x = struct.pack("<I", 0x04) + struct.pack("<I", width - 1)[:3] + struct.pack("<I", height - 1)[:3]
    chunks = b"VP8X" + struct.pack("<I", len(vp8x)) + vp8x + image_chunk
    rest = size - 12 - len(chunks) - 8
    rest = max(len(tag) + len(tag) % 2, rest - rest % 2)
    chunks += b"XMP " + struct.pack("<I", rest) + site._padding(tag, rest)
    return b"RIFF" + struct.pack("<I", 4 + len(chunks)) + b"WEBP" + chunks


def make_image(kind, width, height, size=None, tag=b""):
    if DECODABLE_ON[0] and kind in ("webp", "avif"):
        return decodable_image(kind, width, height, site.target_size(kind, width, height) if size is None else size, tag)
    return site.make_image(kind, width, height, size=size, tag=tag)


DECODABLE_ON = [False]


def page_key(url):
    """A page URL as --pages matches it: no fragment, scheme and host lower-case, an empty path as /."""
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path or "/", parts.query, ""))


class Pages:
    """--pages: {page URL: file}, read again when the file changes."""

    def __init__(self, path):
        self.path = path
        self.stamp = None
        self.pages = {}
        self.lock = threading.Lock()

    def lookup(self, url):
        with self.lock:
            try:
                stat = os.stat(self.path)
                stamp = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
            except OSError:
                stamp = None
            if stamp != self.stamp:
                self.stamp = stamp
                try:
                    with open(self.path, encoding="utf-8") as f:
                        self.pages = {page_key(u): p for u, p in json.load(f).items()}
                except (OSError, ValueError):
                    self.pages = {}
            return self.pages.get(page_key(url))


def not_an_image(headers):
    """True when a browser asks for something that is not an image (see --pages)."""
    dest = headers.get("sec-fetch-dest", "").lower()
    if dest:
        return dest not in ("image", "empty")
    accept = headers.get("accept", "").lower()
    return accept.startswith(("text/html", "text/css", "application/xhtml"))


def answer(url, accept):
    """→ (content type, body, "WIDTH HINT" or '-')"""
    parsed = urllib.parse.urlsplit(url)
    kind = image_kind(parsed, accept)
    width, how = width_hint(parsed)
    tag = hashlib.sha256(url.encode("utf-8", "surrogateescape")).digest()[:16]
    if kind == "svg":
        w, h = (width, width * 2 // 3) if width else DEFAULT_DIMS
        body = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}"><!-- {tag.hex()} -->'
                f'<rect width="{w}" height="{h}" fill="#888"/></svg>\n').encode()
        return MIME[kind], body, f"{width} {how}" if width else "-"
    if width:
        body = make_image(kind, width, max(1, width * 2 // 3), tag=tag)
    else:
        body = make_image(kind, *DEFAULT_DIMS, size=DEFAULT_SIZE, tag=tag)
    return MIME[kind], body, f"{width} {how}" if width else "-"


class Certificates:
    """Per-host leaf certificates signed by the CA, made on first use; one key for all of them."""

    def __init__(self, ca_cert, ca_key, folder):
        with open(ca_cert, "rb") as f:
            self.ca = x509.load_pem_x509_certificate(f.read())
        with open(ca_key, "rb") as f:
            self.ca_key = serialization.load_pem_private_key(f.read(), password=None)
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.folder = folder
        self.key_path = os.path.join(folder, "leaf.key")
        with open(self.key_path, "wb") as f:
            f.write(self.key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
        self.contexts = {}
        self.lock = threading.Lock()

    def context(self, host):
        with self.lock:
            if host in self.contexts:
                return self.contexts[host]
            try:
                san = x509.IPAddress(ipaddress.ip_address(host.strip("[]")))
            except ValueError:
                san = x509.DNSName(host)
            now = datetime.datetime.now(datetime.timezone.utc)
            cert = (x509.CertificateBuilder()
                    .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host[:64] or "host")]))
                    .issuer_name(self.ca.subject)
                    .public_key(self.key.public_key())
                    .serial_number(x509.random_serial_number())
                    .not_valid_before(now - datetime.timedelta(hours=1))
                    .not_valid_after(now + datetime.timedelta(days=2))
                    .add_extension(x509.SubjectAlternativeName([san]), critical=False)
                    .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                    .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
                    .sign(self.ca_key, hashes.SHA256()))
            path = os.path.join(self.folder, f"host-{len(self.contexts)}.pem")
            with open(path, "wb") as f:
                f.write(cert.public_bytes(serialization.Encoding.PEM))
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(path, self.key_path)
            ctx.set_alpn_protocols(["http/1.1"])
            self.contexts[host] = ctx
            return ctx


class Log:
    def __init__(self, path):
        self.f = open(path, "a", buffering=1, encoding="utf-8", errors="backslashreplace")
        self.lock = threading.Lock()
        self.count = 0

    def write(self, *fields):
        line = "\t".join(str(x).replace("\t", " ").replace("\n", " ") for x in fields) + "\n"
        with self.lock:
            self.count += 1
            self.f.write(line)
            self.f.flush()


def read_head(rfile):
    """→ (request line, {lowercased header: value}) or (None, None) at the end of the stream."""
    line = rfile.readline(65537)
    while line in (b"\r\n", b"\n"):
        line = rfile.readline(65537)
    if not line:
        return None, None
    headers = {}
    while True:
        h = rfile.readline(65537)
        if h in (b"\r\n", b"\n", b""):
            break
        name, _, value = h.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    return line.decode("latin-1").rstrip("\r\n"), headers


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        sock = self.request
        rfile = sock.makefile("rb")
        try:
            line, headers = read_head(rfile)
            if line is None:
                return
            parts = line.split()
            if len(parts) == 3 and parts[0].upper() == "CONNECT":
                host = parts[1].rsplit(":", 1)[0] if not parts[1].startswith("[") else parts[1].split("]")[0] + "]"
                sock.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                tls = self.server.certs.context(host).wrap_socket(sock, server_side=True)
                self.serve(tls, tls.makefile("rb"), "https", parts[1], None, None)
            else:
                self.serve(sock, rfile, "http", None, line, headers)
        except (OSError, ssl.SSLError, ValueError):
            pass

    def serve(self, sock, rfile, scheme, authority, line, headers):
        """Answers requests on one connection until it closes (the first may already be read)."""
        while True:
            if line is None:
                line, headers = read_head(rfile)
                if line is None:
                    return
            parts = line.split()
            method = parts[0].upper() if parts else ""
            target = parts[1] if len(parts) > 1 else "/"
            if scheme == "https" or not target.lower().startswith("http"):
                url = f"https://{headers.get('host') or authority}{target}" if scheme == "https" else \
                      f"http://{headers.get('host', 'unknown')}{target}"
            else:
                url = target
            host = urllib.parse.urlsplit(url).netloc
            close = headers.get("connection", "").lower() == "close" or (len(parts) > 2 and parts[2] == "HTTP/1.0")
            if "content-length" in headers:
                rfile.read(int(headers["content-length"] or 0))
            page = self.server.pages.lookup(url) if self.server.pages and method in ("GET", "HEAD") else None
            if page:
                with open(page, "rb") as f:
                    ctype, body, width, status = "text/html", f.read(), "page", 200
            elif self.server.pages and method in ("GET", "HEAD") and not_an_image(headers):
                ctype, body, width, status = "text/plain", b"not an image\n", "-", 404
            elif method in ("GET", "HEAD"):
                ctype, body, width = answer(url, headers.get("accept"))
                status = 200
            else:
                ctype, body, width, status = "text/plain", b"only GET and HEAD\n", "-", 405
            self.server.log.write(scheme, host, method, status, ctype, len(body), width, url)
            reason = {200: "OK", 404: "Not Found", 405: "Method Not Allowed"}[status]
            head = (f"HTTP/1.1 {status} {reason}\r\n"
                    f"Content-Type: {ctype}\r\nContent-Length: {len(body)}\r\n"
                    f"Cache-Control: max-age=3600\r\nConnection: {'close' if close else 'keep-alive'}\r\n\r\n")
            sock.sendall(head.encode() + (body if method != "HEAD" else b""))
            if close:
                return
            line = headers = None


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ca-cert", required=True)
    parser.add_argument("--ca-key", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--certs", help="folder for the leaf certificates (default: a temp folder)")
    parser.add_argument("--decodable", action="store_true",
                        help="AVIF and WebP answers a browser can decode (needs Pillow >= 11.3)")
    parser.add_argument("--pages", help="JSON {page URL: file}: serve these pages; 404 for a browser's other non-image requests")
    args = parser.parse_args()
    if args.decodable:
        from PIL import features
        if not (features.check("webp") and features.check("avif")):
            sys.exit("catchall_proxy.py --decodable: this Pillow cannot write WebP and AVIF (Pillow >= 11.3 can)")
        DECODABLE_ON[0] = True
    folder = args.certs or tempfile.mkdtemp(prefix="catchall-certs.")
    os.makedirs(folder, exist_ok=True)
    server = Server(("127.0.0.1", args.port), Handler)
    server.certs = Certificates(args.ca_cert, args.ca_key, folder)
    server.log = Log(args.log)
    server.pages = Pages(args.pages) if args.pages else None
    print(f"ready {server.server_address[1]}", flush=True)

    def stop(*_):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, stop)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        print(f"catchall_proxy: {server.log.count} requests answered, {len(server.certs.contexts)} host certificates made",
              file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
