#!/usr/bin/env python3
"""Hostile HTTP and HTTPS servers for Benchmarks/hostile/run.sh, on 127.0.0.1 only.

usage: hostile_server.py CERT KEY PORTFILE

Listens on four ports chosen by the system and writes them to PORTFILE as JSON
({"http": …, "https": …, "tls_stall": …, "tls_half_hello": …}) once ready:

  http, https      the same routes, HTTP/1.1 (HTTPS with CERT/KEY, ALPN http/1.1)
  tls_stall        reads the ClientHello, then says nothing
  tls_half_hello   reads the ClientHello, then sends 11 of a ServerHello's 127 bytes

Routes (any other path is 404):
  /good/N.png                 a valid PNG, N pixels wide (each one different)
  /h/headers-forever.png      status line, then header fields for ever, as fast as the client reads
  /h/header-1mb.png           one header line of 1 MB, then a valid PNG
  /h/chunked-forever.png      a chunked body that never ends, as fast as the client reads
  /h/chunked-forever-slow.png a chunked body that never ends, 1 KB every 100 ms
  /h/short-body-close.png     Content-Length: 100000, 500 bytes, then the connection is closed
  /h/short-body-silent.png    Content-Length: 100000, 500 bytes, then silence
  /h/silent.png               the request is read, nothing is ever answered
  /h/redirect-file.png        302 to file:///etc/passwd
  /h/redirect-ftp.png         302 to ftp://127.0.0.1/a.png
  /h/redirect-self.png        302 to itself (for ever, if the client keeps asking)
  /h/200mb-declared.png       a 200 MB PNG-looking body with its Content-Length, streamed
  /h/200mb-chunked.png        the same without Content-Length (chunked)
  /__stats                    JSON: per path, requests, body bytes sent, seconds from the first
                              request to the last connection's end; then the counters are reset

Every body is written in pieces, each once the previous one has been taken by the client
(`drain`), so the server's memory stays small whatever it sends.
"""

import asyncio
import json
import ssl
import struct
import sys
import time
import zlib

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
FILLER = b"B" * 65536


def png(width):
    """A valid RGB PNG, `width` × 1 pixels."""

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, 1, 8, 2, 0, 0, 0)
    row = b"\x00" + bytes((x * 7) % 256 for x in range(width * 3))
    return PNG_SIGNATURE + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(row)) + chunk(b"IEND", b"")


class Stats:
    def __init__(self):
        self.reset()

    def reset(self):
        self.paths = {}

    def begin(self, path):
        entry = self.paths.setdefault(path, {"requests": 0, "bytes": 0, "first": time.monotonic(), "last_end": None})
        entry["requests"] += 1
        return entry

    def report(self):
        out = {}
        for path, e in self.paths.items():
            end = e["last_end"] or time.monotonic()
            out[path] = {"requests": e["requests"], "bytes": e["bytes"], "seconds": round(end - e["first"], 3)}
        return out


STATS = Stats()


async def send(writer, entry, data):
    # asyncio neither raises on writing to a connection the client closed nor blocks in drain(),
    # and over TLS the transport does not even say it is closing: an endless body would spin for
    # ever without yielding, so the loop never learns that the connection is gone. Yielding once
    # per write lets it; the reader then sees the end of the connection.
    await asyncio.sleep(0)
    if writer.transport.is_closing() or writer.peer_reader.at_eof():
        raise ConnectionResetError("the client went away")
    writer.write(data)
    entry["bytes"] += len(data)
    await writer.drain()


async def read_head(reader):
    head = await reader.readuntil(b"\r\n\r\n")
    line = head.split(b"\r\n", 1)[0].decode("latin-1")
    parts = line.split(" ")
    return parts[1] if len(parts) >= 2 else "/"


async def serve_route(path, reader, writer):
    if path == "/__stats":
        body = json.dumps(STATS.report()).encode()
        STATS.reset()
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
        await writer.drain()
        return False
    entry = STATS.begin(path)
    try:
        return await route(path, entry, reader, writer)
    finally:
        entry["last_end"] = time.monotonic()


async def route(path, entry, reader, writer):
    """Answers one request; returns whether the connection may serve another."""
    ok = b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n"
    if path.startswith("/good/"):
        body = png(int(path[len("/good/"):-len(".png")]))
        await send(writer, entry, ok + b"Content-Length: %d\r\n\r\n" % len(body) + body)
        return True
    if path == "/h/headers-forever.png":
        await send(writer, entry, ok)
        n = 0
        while True:
            await send(writer, entry, b"".join(b"X-Filler-%d: %s\r\n" % (n + i, b"a" * 80) for i in range(64)))
            n += 64
    if path == "/h/header-1mb.png":
        body = png(3)
        await send(writer, entry, ok + b"X-Huge: " + b"a" * (1024 * 1024) + b"\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
        return True
    if path in ("/h/chunked-forever.png", "/h/chunked-forever-slow.png"):
        slow = path.endswith("-slow.png")
        await send(writer, entry, ok + b"Transfer-Encoding: chunked\r\n\r\n")
        await send(writer, entry, b"%x\r\n%s\r\n" % (len(PNG_SIGNATURE), PNG_SIGNATURE))
        piece = FILLER[:1024] if slow else FILLER
        chunk = b"%x\r\n%s\r\n" % (len(piece), piece)
        while True:
            await send(writer, entry, chunk)
            if slow:
                await asyncio.sleep(0.1)
    if path in ("/h/short-body-close.png", "/h/short-body-silent.png"):
        body = png(200)
        await send(writer, entry, ok + b"Content-Length: 100000\r\n\r\n" + (body + FILLER)[:500])
        if path.endswith("-close.png"):
            return False
        await reader.read()  # until the client goes away
        return False
    if path == "/h/silent.png":
        await reader.read()
        return False
    redirects = {
        "/h/redirect-file.png": b"file:///etc/passwd",
        "/h/redirect-ftp.png": b"ftp://127.0.0.1/a.png",
        "/h/redirect-self.png": b"/h/redirect-self.png",
    }
    if path in redirects:
        await send(writer, entry, b"HTTP/1.1 302 Found\r\nLocation: %s\r\nContent-Length: 0\r\n\r\n" % redirects[path])
        return True
    if path in ("/h/200mb-declared.png", "/h/200mb-chunked.png"):
        total = 200 * 1024 * 1024
        chunked = path.endswith("-chunked.png")
        await send(writer, entry, ok + (b"Transfer-Encoding: chunked\r\n\r\n" if chunked else b"Content-Length: %d\r\n\r\n" % total))
        sent = 0
        while sent < total:
            piece = PNG_SIGNATURE + FILLER[len(PNG_SIGNATURE):] if sent == 0 else FILLER
            piece = piece[: total - sent]
            await send(writer, entry, b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
            sent += len(piece)
        if chunked:
            await send(writer, entry, b"0\r\n\r\n")
        return True
    await send(writer, entry, b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
    return True


async def http_connection(reader, writer):
    writer.peer_reader = reader
    try:
        while True:
            path = await read_head(reader)
            if not await serve_route(path, reader, writer):
                break
    except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError, asyncio.LimitOverrunError):
        pass
    finally:
        writer.close()


def tls_staller(half_hello):
    async def connection(reader, writer):
        entry = STATS.begin("tls-half-hello" if half_hello else "tls-stall")
        try:
            first = await reader.read(5)
            if first[:1] == b"\x16" and half_hello:
                # Record header: handshake, TLS 1.2, 122 bytes; then 6 of them.
                writer.write(bytes([0x16, 0x03, 0x03, 0x00, 0x7A, 0x02, 0x00, 0x00, 0x76, 0x03, 0x03]))
                await writer.drain()
            while await reader.read(65536):
                pass
        except ConnectionError:
            pass
        finally:
            entry["last_end"] = time.monotonic()
            writer.close()

    return connection


async def main(cert, key, port_file):
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    context.set_alpn_protocols(["http/1.1"])
    servers = {
        "http": await asyncio.start_server(http_connection, "127.0.0.1", 0),
        "https": await asyncio.start_server(http_connection, "127.0.0.1", 0, ssl=context),
        "tls_stall": await asyncio.start_server(tls_staller(False), "127.0.0.1", 0),
        "tls_half_hello": await asyncio.start_server(tls_staller(True), "127.0.0.1", 0),
    }
    ports = {name: server.sockets[0].getsockname()[1] for name, server in servers.items()}
    with open(port_file + ".tmp", "w") as f:
        json.dump(ports, f)
    import os

    os.rename(port_file + ".tmp", port_file)
    await asyncio.gather(*(server.serve_forever() for server in servers.values()))


if __name__ == "__main__":
    try:
        asyncio.run(main(*sys.argv[1:4]))
    except KeyboardInterrupt:
        pass
