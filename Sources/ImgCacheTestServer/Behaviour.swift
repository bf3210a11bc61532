#if CommandLine
/// What a route of a ``TestImageServer`` does when a GET request reaches it.
///
/// Every behaviour works over plain HTTP/1.1, HTTP/1.1 over TLS and HTTP/2. Where HTTP/2 cannot do
/// the same thing (it has no per-request connection to close), the behaviour says what it does.
public enum Behaviour: Sendable {
    /// `200 OK` with `bytes` as the body, `Content-Type: contentType`, a `Content-Length`, and the
    /// `ETag` / `Last-Modified` headers when given.
    ///
    /// Conditional requests: when `etag` is set and the request's `If-None-Match` lists it (or `*`;
    /// weak `W/` prefixes are ignored), or when no `If-None-Match` was sent, `lastModified` is set and
    /// the request's `If-Modified-Since` equals it or is a later HTTP date, the answer is
    /// `304 Not Modified` with the validators and no body.
    ///
    /// `delay` is waited (without blocking the server) before anything is sent.
    case image(
        bytes: [UInt8],
        contentType: String,
        etag: String? = nil,
        lastModified: String? = nil,
        delay: Duration = .zero
    )

    /// Any status code with an optional body (e.g. 404, 500, 503, or an HTML page with 200 on a
    /// `.png` path). `delay` is waited before anything is sent.
    case status(Int, body: [UInt8] = [], contentType: String = "text/plain", delay: Duration = .zero)

    /// `200 OK` with `Content-Length: declaredLength`, then only `bytes`, then the connection is
    /// closed (a normal FIN; with TLS after a `close_notify`). The `Content-Type` is sniffed from the
    /// bytes' magic numbers (PNG, JPEG, GIF, WebP), `application/octet-stream` otherwise.
    ///
    /// Over HTTP/2: the same HEADERS (with that `content-length`) and DATA, then the stream is reset
    /// with `RST_STREAM(INTERNAL_ERROR)` instead of ending; the connection and its other streams go on.
    case truncated(bytes: [UInt8], declaredLength: Int)

    /// No answer at all: the connection is closed with `SO_LINGER` 0, which sends a TCP RST (with TLS,
    /// without a `close_notify` first).
    ///
    /// Over HTTP/2: the stream is reset with `RST_STREAM(INTERNAL_ERROR)` before any HEADERS; the
    /// connection and its other streams go on.
    case reset

    /// A redirect (`status`, 302 by default) with `Location: to` (sent exactly as given, so it may
    /// be relative, e.g. `"/b.png"`, or absolute, e.g. `server.url("/b.png")`) and an empty body.
    /// Chains and loops are made of several routes.
    case redirect(to: String, status: Int = 302)

    /// A slow server: `200 OK` with the full `Content-Length` and a sniffed `Content-Type` are sent at
    /// once, then the body one byte per `interval`. Stops when the client goes away (closes the
    /// connection, or over HTTP/2 resets the stream).
    case drip(bytes: [UInt8], interval: Duration)

    /// A body made up as it is sent, never held whole: `prefix` (say, a PNG signature), then
    /// `chunkSize`-byte chunks of filler, each written once the one before has left (so the server's
    /// memory stays one chunk however large the body), `interval` apart. `length` nil: it never
    /// ends. `declaresLength`: whether a `Content-Length: length` is sent; otherwise the body is
    /// chunked (over HTTP/2, DATA frames without a `content-length`). The `Content-Type` is sniffed
    /// from `prefix`. Stops when the client goes away.
    case stream(
        prefix: [UInt8], length: Int?, declaresLength: Bool = true, chunkSize: Int = 64 * 1024,
        interval: Duration = .zero
    )

    /// `200 OK` with `Content-Length: declaredLength`, then only `bytes`, then silence: unlike
    /// ``truncated(bytes:declaredLength:)`` the connection (or HTTP/2 stream) stays open until the
    /// client gives up.
    case shortBody(bytes: [UInt8], declaredLength: Int)

    /// A head that never ends: after the status line, header fields (`X-Filler-N`, about 100 bytes
    /// each) one after another, `interval` apart, each once the one before has left, until the
    /// client goes away. The bytes are written below NIO's HTTP encoder, which only writes whole heads.
    ///
    /// HTTP/1.x only: over HTTP/2 the stream is reset with `RST_STREAM(INTERNAL_ERROR)` before any
    /// HEADERS (NIOHTTP2 cannot leave a header block open, and will not send an oversized one).
    case endlessHeaders(interval: Duration = .zero)

    /// `200 OK` with `bytes` as the body, whose head carries one header field `X-Huge` with a value
    /// of `valueLength` bytes (a 1 MB header line, say).
    ///
    /// HTTP/1.x only: over HTTP/2 the stream is reset before any HEADERS, as with ``endlessHeaders(interval:)``.
    case hugeHeader(valueLength: Int, bytes: [UInt8], contentType: String)

    /// `bytes` exactly as they are, below NIO's HTTP encoder (which refuses control characters in
    /// header values), then the connection is closed: a head no well-behaved server sends, such as
    /// `ETag: "v1"<CR>X-Injected: yes`. The bytes should hold a whole response, head and body.
    ///
    /// HTTP/1.x only: over HTTP/2 the stream is reset, as with ``endlessHeaders(interval:)``.
    case raw([UInt8])

    /// An answer NIO's HTTP encoder would refuse to send, such as a header value holding control
    /// characters (an escape sequence in a `Content-Type` or a `Location`): the status line and
    /// `headers` written exactly as given, then a `Content-Length`, `Connection: close` and
    /// `body`; then the connection is closed. The bytes are written below the encoder.
    ///
    /// HTTP/1.x only: over HTTP/2 the stream is reset before any HEADERS, as with ``endlessHeaders(interval:)``.
    case unvalidatedHead(status: Int, headers: [(name: String, value: String)], body: [UInt8] = [])

    /// Content negotiation, as image CDNs do it (`f_auto`, `auto=format`): the first of
    /// `variants` whose media type the request's `Accept` header names (exactly, ignoring
    /// parameters such as `;q=`), served as `.image`; `fallback` when none is named or there is no
    /// `Accept` header.
    indirect case negotiated(variants: [(mediaType: String, bytes: [UInt8])], fallback: Behaviour)

    /// The n-th request to the route gets the n-th behaviour; once the list is used up the last one
    /// repeats. The position is per route and starts again when the route is registered anew.
    /// An empty list answers 500.
    case sequence([Behaviour])
}

/// One request as the server received it.
public struct RecordedRequest: Sendable {
    /// The method, e.g. `"GET"`.
    public let method: String
    /// The request target exactly as sent, query included, e.g. `"/a.png?x=1"`.
    public let uri: String
    /// The request target without its query, e.g. `"/a.png"`.
    public let path: String
    /// `"HTTP/1.1"`, `"HTTP/1.0"`, or `"HTTP/2"`.
    public let version: String
    /// All header fields in the order received. HTTP/2 pseudo-headers are not among them, but an
    /// HTTP/2 request's `:authority` appears as a `host` field (first) when it sent no `host` itself.
    public let headers: [(name: String, value: String)]
    /// Which TCP connection carried it: connections are numbered from 1 in the order accepted,
    /// so two requests with the same id shared a (keep-alive or HTTP/2) connection.
    public let connectionID: Int

    /// The first value of the header `name` (case-insensitive), or nil.
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name.lowercased() == lowered }?.value
    }

    /// Every value of the header `name` (case-insensitive).
    public func headers(named name: String) -> [String] {
        let lowered = name.lowercased()
        return headers.filter { $0.name.lowercased() == lowered }.map(\.value)
    }
}
#endif
