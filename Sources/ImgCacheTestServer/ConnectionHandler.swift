#if CommandLine
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOSSL

/// Serves the requests of one HTTP/1.1 connection, or the one request of one HTTP/2 stream. Lives on
/// the connection's event loop; everything it shares with the rest of the server goes through the
/// lock-protected `ServerState`.
///
/// Over HTTP/1.1, `HTTPServerPipelineHandler` (installed in front of it) holds back a pipelined next
/// request until the current response's `.end` is written, so there is at most one request in flight
/// here. Over HTTP/2, `HTTP2FramePayloadToHTTP1ServerCodec` turns the stream's frames into the same
/// request and response parts, so every behaviour is written once; only the ways of failing differ.
final class ConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// What the handler's channel is.
    enum Framing {
        /// A TCP connection (with or without TLS) carrying HTTP/1.x.
        case http1
        /// One HTTP/2 stream, a child channel of the TCP connection.
        case http2Stream
    }

    private let state: ServerState
    private let connectionID: Int
    private let framing: Framing
    private var head: HTTPRequestHead?
    private var keepAlive = true
    private var isHeadRequest = false
    private var requestInFlight = false
    private var scheduled: Scheduled<Void>?

    init(state: ServerState, connectionID: Int, framing: Framing = .http1) {
        self.state = state
        self.connectionID = connectionID
        self.framing = framing
    }

    // MARK: inbound

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body:
            break  // request bodies are ignored
        case .end:
            guard let head = self.head else { return }
            self.head = nil
            handle(head, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        scheduled?.cancel()
        scheduled = nil
        finishRequest()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // e.g. the client reset the connection or the stream, or TLS ended uncleanly: nothing to
        // report to anybody, just drop it.
        context.close(promise: nil)
    }

    // MARK: dispatch

    private func handle(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        // An HTTP/2 stream carries one request; the connection outlives it whatever the headers say.
        keepAlive = framing == .http2Stream || head.isKeepAlive
        isHeadRequest = head.method == .HEAD
        let uri = head.uri
        let path = uri.firstIndex(of: "?").map { String(uri[..<$0]) } ?? uri
        let record = RecordedRequest(
            method: head.method.rawValue,
            uri: uri,
            path: path,
            version: head.version.major >= 2
                ? "HTTP/\(head.version.major)" : "HTTP/\(head.version.major).\(head.version.minor)",
            headers: head.headers.map { (name: $0.name, value: $0.value) },
            connectionID: connectionID
        )
        requestInFlight = true
        let action = state.beginRequest(record)

        switch action {
        case .notFound:
            respond(context, .notFound, contentType: "text/plain", body: Array("not found\n".utf8))
        case .methodNotAllowed:
            var extra = HTTPHeaders()
            extra.add(name: "Allow", value: "GET")
            respond(
                context, .methodNotAllowed, contentType: "text/plain",
                body: Array("method not allowed\n".utf8), extra: extra)
        case .behave(let behaviour):
            perform(behaviour, request: record, context: context)
        }
    }

    private func perform(_ behaviour: Behaviour, request: RecordedRequest, context: ChannelHandlerContext) {
        switch behaviour {
        case .image(let bytes, let contentType, let etag, let lastModified, let delay):
            after(delay, context) {
                var validators = HTTPHeaders()
                if let etag { validators.add(name: "ETag", value: etag) }
                if let lastModified { validators.add(name: "Last-Modified", value: lastModified) }
                if Conditional.notModified(request: request, etag: etag, lastModified: lastModified) {
                    self.respond(context, .notModified, contentType: nil, body: [], extra: validators)
                } else {
                    self.respond(context, .ok, contentType: contentType, body: bytes, extra: validators)
                }
            }

        case .status(let code, let body, let contentType, let delay):
            after(delay, context) {
                self.respond(context, HTTPResponseStatus(statusCode: code), contentType: contentType, body: body)
            }

        case .truncated(let bytes, let declaredLength):
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: Sniff.contentType(bytes))
            headers.add(name: "Content-Length", value: String(declaredLength))
            let head = HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))
            let parts = bytes.isEmpty ? [head] : [head, .body(.byteBuffer(ByteBuffer(bytes: bytes)))]
            switch framing {
            case .http1:
                for part in parts { context.write(wrapOutboundOut(part), promise: nil) }
                context.flush()
                // Written and flushed in order, so a close queued now goes out after the bytes.
                context.close(promise: nil)
            case .http2Stream:
                let written = parts.map { context.write(wrapOutboundOut($0)) }
                context.flush()
                // Reset once the bytes have left the stream, so that the reset cannot overtake them.
                written.last?.assumeIsolated().whenComplete { _ in self.resetStream(context) }
            }

        case .reset:
            switch framing {
            case .http1: resetConnection(context)
            case .http2Stream: resetStream(context)
            }

        case .redirect(let location, let status):
            var extra = HTTPHeaders()
            extra.add(name: "Location", value: location)
            respond(context, HTTPResponseStatus(statusCode: status), contentType: nil, body: [], extra: extra)

        case .drip(let bytes, let interval):
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: Sniff.contentType(bytes))
            headers.add(name: "Content-Length", value: String(bytes.count))
            if !keepAlive && framing == .http1 { headers.add(name: "Connection", value: "close") }
            context.writeAndFlush(
                wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))),
                promise: nil)
            drip(bytes[...], interval: interval, context: context)

        case .stream(let prefix, let length, let declaresLength, let chunkSize, let interval):
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: Sniff.contentType(prefix))
            // Without a Content-Length, NIO's HTTP/1.1 encoder sends the body chunked.
            if declaresLength, let length { headers.add(name: "Content-Length", value: String(length)) }
            if !keepAlive && framing == .http1 { headers.add(name: "Connection", value: "close") }
            context.writeAndFlush(
                wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))),
                promise: nil)
            stream(GeneratedBody(prefix: prefix, length: length, chunkSize: chunkSize), interval: interval, context: context)

        case .shortBody(let bytes, let declaredLength):
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: Sniff.contentType(bytes))
            headers.add(name: "Content-Length", value: String(declaredLength))
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            if !bytes.isEmpty { context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: bytes)))), promise: nil) }
            // Then nothing: the request stays in flight until the client closes the connection or
            // resets the stream.
            context.flush()

        case .endlessHeaders(let interval):
            guard framing == .http1,
                let raw = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
            else {
                resetStream(context)
                return
            }
            raw.writeAndFlush(NIOAny(ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n")), promise: nil)
            floodHeaders(from: 0, interval: interval, raw: raw, context: context)

        case .hugeHeader(let valueLength, let bytes, let contentType):
            guard framing == .http1 else {
                resetStream(context)
                return
            }
            var extra = HTTPHeaders()
            extra.add(name: "X-Huge", value: String(repeating: "a", count: valueLength))
            respond(context, .ok, contentType: contentType, body: bytes, extra: extra)

        case .raw(let bytes):
            writeBelowEncoder(ByteBuffer(bytes: bytes), context: context)

        case .unvalidatedHead(let status, let fields, let body):
            var head = "HTTP/1.1 \(status) \(HTTPResponseStatus(statusCode: status).reasonPhrase)\r\n"
            for field in fields { head += "\(field.name): \(field.value)\r\n" }
            head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
            var bytes = ByteBuffer(string: head)
            if !isHeadRequest { bytes.writeBytes(body) }
            writeBelowEncoder(bytes, context: context)

        case .negotiated(let variants, let fallback):
            let accepted = Set((request.header("Accept") ?? "").split(separator: ",").map {
                $0.split(separator: ";")[0].trimmingCharacters(in: .whitespaces).lowercased()
            })
            if let variant = variants.first(where: { accepted.contains($0.mediaType.lowercased()) }) {
                perform(.image(bytes: variant.bytes, contentType: variant.mediaType), request: request, context: context)
            } else {
                perform(fallback, request: request, context: context)
            }

        case .sequence:
            // ServerState.resolve never hands out a sequence.
            respond(context, .internalServerError, contentType: "text/plain", body: Array("unresolved sequence\n".utf8))
        }
    }

    // MARK: writing

    private func respond(
        _ context: ChannelHandlerContext,
        _ status: HTTPResponseStatus,
        contentType: String?,
        body: [UInt8],
        extra: HTTPHeaders = HTTPHeaders()
    ) {
        guard context.channel.isActive else {
            finishRequest()
            return
        }
        var headers = extra
        if let contentType, status.mayHaveResponseBody { headers.add(name: "Content-Type", value: contentType) }
        if status.mayHaveResponseBody { headers.add(name: "Content-Length", value: String(body.count)) }
        if !keepAlive && framing == .http1 { headers.add(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        // A response to HEAD never has a body, whatever its headers say.
        if !body.isEmpty && status.mayHaveResponseBody && !isHeadRequest {
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        }
        writeEnd(context)
    }

    /// Writes `.end`, then marks the request finished and closes a connection that isn't kept alive.
    private func writeEnd(_ context: ChannelHandlerContext) {
        let keepAlive = self.keepAlive
        // The request is over once its last byte is handed to the socket; count it as finished
        // before `.end` lets the pipeline handler deliver a pipelined next request.
        finishRequest()
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            if !keepAlive { context.close(promise: nil) }
        }
    }

    private func drip(_ rest: ArraySlice<UInt8>, interval: Duration, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        guard let byte = rest.first else {
            scheduled = nil
            writeEnd(context)
            return
        }
        scheduled = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(interval)) {
            guard context.channel.isActive else { return }
            context.writeAndFlush(self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: [byte])))), promise: nil)
            self.drip(rest.dropFirst(), interval: interval, context: context)
        }
    }

    /// Writes the next piece of `body` once the one before has left, so that a client that reads
    /// slowly (or not at all) holds up the server instead of filling its memory.
    private func stream(_ body: GeneratedBody, interval: Duration, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        var body = body
        guard let chunk = body.next() else {
            scheduled = nil
            writeEnd(context)
            return
        }
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(chunk)))).assumeIsolated().whenComplete { result in
            guard case .success = result else { return }
            // Scheduled, not called: a write that completes at once must not make the stack grow.
            self.scheduled = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(interval)) {
                self.stream(body, interval: interval, context: context)
            }
        }
    }

    /// Writes header field `n` of an endless head through `raw` (below the HTTP encoder), then the
    /// next one once it has left, until the client goes away.
    private func floodHeaders(from n: Int, interval: Duration, raw: ChannelHandlerContext, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        // Unpaced, 32 fields a write: a write per field took 860 trips through the event loop to
        // pass a client's 80 KB limit, longer than a test's 10 s timeout on a busy machine.
        let fields = interval == .zero ? 32 : 1
        let text = (n..<n + fields).map(HeaderFlood.line).joined()
        raw.writeAndFlush(NIOAny(ByteBuffer(string: text))).assumeIsolated().whenComplete { result in
            guard case .success = result else { return }
            self.scheduled = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(interval)) {
                self.floodHeaders(from: n + fields, interval: interval, raw: raw, context: context)
            }
        }
    }

    /// Writes a whole answer below NIO's HTTP encoder, which refuses what these answers hold, then
    /// closes the connection (the encoder never saw the answer, so it cannot go on); HTTP/1.x only,
    /// an HTTP/2 stream is reset instead.
    private func writeBelowEncoder(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        guard framing == .http1,
            let raw = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
        else {
            resetStream(context)
            return
        }
        // Over once its bytes are handed to the socket.
        finishRequest()
        raw.writeAndFlush(NIOAny(bytes)).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    private func after(_ delay: Duration, _ context: ChannelHandlerContext, _ body: @escaping () -> Void) {
        guard delay > .zero else {
            body()
            return
        }
        scheduled = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(delay)) {
            self.scheduled = nil
            body()
        }
    }

    /// Ends the TCP connection with a RST. With TLS the close starts below the TLS handler, which
    /// would otherwise send a `close_notify` first and so announce a clean end.
    private func resetConnection(_ context: ChannelHandlerContext) {
        let below = (try? context.pipeline.syncOperations.context(handlerType: NIOSSLServerHandler.self)) ?? context
        guard let provider = context.channel as? any SocketOptionProvider else {
            below.close(promise: nil)
            return
        }
        provider.setSoLinger(NIOLinger(l_onoff: 1, l_linger: 0)).assumeIsolated().whenComplete { _ in
            below.close(promise: nil)
        }
    }

    /// Ends this HTTP/2 stream with `RST_STREAM(INTERNAL_ERROR)`; the connection and its other streams
    /// go on. The frame is written from the codec's place in the pipeline, below the HTTP/1 parts.
    private func resetStream(_ context: ChannelHandlerContext) {
        guard context.channel.isActive,
            let codec = try? context.pipeline.syncOperations.context(
                handlerType: HTTP2FramePayloadToHTTP1ServerCodec.self)
        else {
            context.close(promise: nil)
            return
        }
        codec.writeAndFlush(NIOAny(HTTP2Frame.FramePayload.rstStream(.internalError)), promise: nil)
    }

    private func finishRequest() {
        if requestInFlight {
            requestInFlight = false
            state.endRequest(connectionID: connectionID)
        }
    }
}

enum Sniff {
    static func contentType(_ bytes: [UInt8]) -> String {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if bytes.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            return "image/webp"
        }
        return "application/octet-stream"
    }
}
#endif
