#!/usr/bin/env python3
"""A user-space TCP relay that adds a fixed one-way delay, for Benchmarks/fetch/run.sh (setting 3).

usage: latency_relay.py LISTEN_PORT TARGET_PORT [--delay-ms 25]

Listens on 127.0.0.1:LISTEN_PORT; for each accepted connection it connects to 127.0.0.1:TARGET_PORT
and hands every chunk read from either side to the other side DELAY ms after it was read, in order,
in both directions (so a round trip costs 2 x DELAY). Bandwidth is not limited otherwise. An end of
stream is passed on the same way (half-close, shutdown(SHUT_WR)); a reset or error closes both.
TCP_NODELAY on both sockets. Bytes pass untouched, so TLS goes through end to end.
Prints "ready PORT" on standard output once it listens; on SIGTERM/SIGINT, one line of statistics on
standard error (connections, chunks, how late chunks were delivered).

This is the readable reference; run.sh uses its C twin, latency_relay.c, by default (--relay python
selects this one). Both cost about the same CPU, but asyncio delivers chunks about 0.5 ms late on
average against the C relay's 0.1 ms, which lengthened the fastest client's wall time by 5-15%: see
the comment at the top of latency_relay.c for the measurement.
"""
import argparse
import asyncio
import collections
import signal
import socket
import sys

HIGH_WATER = 8 * 1024 * 1024     # bytes queued in one direction before reading from its source pauses
STATS = {"connections": 0, "chunks": 0, "late_sum": 0.0, "late_max": 0.0, "late_n": 0}


class Direction:
    """One direction of one connection: the chunks read from `source`, waiting to go to `sink`."""

    def __init__(self, pair, loop, delay, name):
        self.pair = pair
        self.loop = loop
        self.delay = delay
        self.name = name
        self.queue = collections.deque()   # (due time, bytes or None for the end of the stream)
        self.queued = 0
        self.timer = None
        self.source = None                 # transports, set once both are connected
        self.sink = None
        self.sink_paused = False
        self.source_paused = False
        self.closed = False

    def push(self, data):
        STATS["chunks"] += 1
        self.queue.append((self.loop.time() + self.delay, data))
        if data:
            self.queued += len(data)
            if self.queued > HIGH_WATER and not self.source_paused and self.source is not None:
                self.source.pause_reading()
                self.source_paused = True
        self.schedule()

    def schedule(self):
        if self.timer is None and self.queue and not self.sink_paused and self.sink is not None:
            self.timer = self.loop.call_at(self.queue[0][0], self.flush)

    def flush(self):
        self.timer = None
        if self.closed or self.sink is None:
            return
        now = self.loop.time()
        while self.queue and self.queue[0][0] <= now and not self.sink_paused:
            due, data = self.queue.popleft()
            late = now - due
            STATS["late_sum"] += late
            STATS["late_n"] += 1
            STATS["late_max"] = max(STATS["late_max"], late)
            if data is None:
                if self.sink.can_write_eof():
                    self.sink.write_eof()
                continue
            self.queued -= len(data)
            self.sink.write(data)
        if self.source_paused and self.queued <= HIGH_WATER // 2 and self.source is not None:
            self.source.resume_reading()
            self.source_paused = False
        self.schedule()
        self.pair.maybe_finish()


class Side(asyncio.Protocol):
    """The protocol of one socket: what it reads goes into `outgoing`; `incoming` writes to it."""

    def __init__(self, pair):
        self.pair = pair
        self.transport = None
        self.outgoing = None
        self.incoming = None

    def connection_made(self, transport):
        self.transport = transport
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def data_received(self, data):
        self.outgoing.push(data)

    def eof_received(self):
        self.outgoing.push(None)
        self.pair.eofs += 1
        return True                      # keep the transport open for the other direction

    def pause_writing(self):
        self.incoming.sink_paused = True

    def resume_writing(self):
        self.incoming.sink_paused = False
        self.incoming.flush()

    def connection_lost(self, exc):
        self.pair.close()


class Pair:
    def __init__(self, loop, delay):
        self.loop = loop
        self.delay = delay
        self.eofs = 0
        self.up = Direction(self, loop, delay, "client->server")
        self.down = Direction(self, loop, delay, "server->client")
        self.client = Side(self)
        self.server = Side(self)
        self.client.outgoing, self.client.incoming = self.up, self.down
        self.server.outgoing, self.server.incoming = self.down, self.up
        self.done = False

    def maybe_finish(self):
        # Both ends finished sending and everything was handed over: close (transports flush first).
        if self.eofs == 2 and not self.up.queue and not self.down.queue:
            # Not at once: this can run inside resume_writing, and closing a transport from there
            # makes asyncio call connection_lost twice (CPython issue #156512).
            self.loop.call_soon(self.close)

    def close(self):
        if self.done:
            return
        self.done = True
        for direction in (self.up, self.down):
            direction.closed = True
            if direction.timer is not None:
                direction.timer.cancel()
        for side in (self.client, self.server):
            if side.transport is not None:
                side.transport.close()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("listen_port", type=int)
    parser.add_argument("target_port", type=int)
    parser.add_argument("--delay-ms", type=float, default=25)
    args = parser.parse_args()
    loop = asyncio.get_running_loop()
    delay = args.delay_ms / 1000
    tasks = set()                        # the loop keeps only weak references to tasks

    async def accepted(pair):
        try:
            await loop.create_connection(lambda: pair.server, "127.0.0.1", args.target_port)
        except OSError:
            pair.close()
            return
        pair.up.source, pair.up.sink = pair.client.transport, pair.server.transport
        pair.down.source, pair.down.sink = pair.server.transport, pair.client.transport
        pair.client.transport.resume_reading()
        pair.up.schedule()

    def factory():
        STATS["connections"] += 1
        pair = Pair(loop, delay)
        original = pair.client.connection_made

        def made(transport):
            original(transport)
            # Reading from the client waits until the server side is connected too.
            transport.pause_reading()
            task = loop.create_task(accepted(pair))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        pair.client.connection_made = made
        return pair.client

    stopping = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    server = await loop.create_server(factory, "127.0.0.1", args.listen_port, backlog=1024, reuse_address=True)
    print(f"ready {args.listen_port}", flush=True)
    async with server:
        await stopping.wait()
    n = max(1, STATS["late_n"])
    print(f"latency_relay.py: {STATS['connections']} connection(s), {STATS['chunks']} chunks; delivered late by "
          f"{STATS['late_sum'] / n * 1e3:.2f} ms on average, {STATS['late_max'] * 1e3:.2f} ms at most", file=sys.stderr)


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(130)
