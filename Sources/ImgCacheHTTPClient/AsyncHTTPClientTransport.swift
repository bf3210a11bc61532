#if CommandLine
public import ImgCache
import AsyncHTTPClient
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An ``ImageTransport`` on AsyncHTTPClient (SwiftNIO): what the command line uses on macOS, and
/// on Linux where libcurl is missing or `--http-client async-http-client` asks for it.
///
/// HTTPS offers HTTP/2 through ALPN and falls back to HTTP/1.1; each response reports the version
/// it came over, so that the downloader multiplexes many requests on an HTTP/2 connection and
/// keeps to a few connections for HTTP/1.1. Certificates are verified in full (chain, dates, host
/// name) against ``CertificateTrust``; a refused one fails with ``TransportError/certificate(host:problem:)``
/// saying what is wrong with it.
///
/// Redirects are not followed, the body is streamed and counted against `maxBytes` as it arrives
/// (reading stops, and the connection or stream is dropped, as soon as the limit is passed), and no
/// `Accept-Encoding` is sent, so bodies arrive as stored.
///
/// Through an HTTP proxy (``ProxySettings``), `http` URLs are sent to the proxy in absolute form
/// (`GET http://host/x.png`), as curl and wget send them, and `https` URLs through a `CONNECT`
/// tunnel. AsyncHTTPClient's proxy is per client while `no_proxy` is per URL, so tunnelled requests
/// go through a second client configured for the proxy.
public final class AsyncHTTPClientTransport: ImageTransport {
    private let direct: HTTPClient
    private let tunnelled: [ProxySettings.Endpoint: HTTPClient]
    private let forwarded: [ProxySettings.Endpoint: ForwardProxyClient]
    private let proxy: ProxySettings
    private let diagnosis: CertificateDiagnosis
    private let guards: AddressGuards

    /// The one event loop every client, connection and bootstrap of this transport runs on, a
    /// thread of its own, ended by ``shutdown()``.
    ///
    /// One loop rather than NIO's one per core: AsyncHTTPClient calls a request's delegate on the
    /// loop the request was given, which with several loops is often not the loop of the
    /// connection that serves it, and every call-out (head, each body part, the end) then hops
    /// between threads; an HTTP/2 connection, which carries all of a host's requests, lives on one
    /// loop anyway. (Two loops with each request pinned to a loop chosen by its origin took more
    /// CPU, not less.) A loop of its own rather than one shared by the process, so that transports
    /// used side by side (an app's sessions, a test suite's) do not queue behind one thread.
    /// POSIX loops on every platform: AsyncHTTPClient's default group is Network.framework's on
    /// Apple platforms, where the NIOPosix bootstraps of the forward proxy, the address guard and
    /// the certificate diagnosis stop the process, `--cacert` is ignored and TLS errors come as
    /// `NWTLSError`.
    private let eventLoopGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    /// Whether ``shutdown()`` has begun: once is enough, and the deinit then has nothing to do.
    private let isShutDown = NIOLockedValueBox(false)

    /// Creates the transport and its HTTP clients (on an event loop thread of its own, ended with
    /// them by ``shutdown()``), trusting the system's CAs.
    ///
    /// - Parameters:
    ///   - proxy: which requests go through which proxy; direct connections by default.
    ///   - connectTimeout: the longest wait for a TCP (and TLS) connection to be set up.
    ///   - readTimeout: the longest silence while waiting for response bytes.
    ///   - maxConnectionsPerHost: how many HTTP/1.1 connections to one host the pool keeps open at
    ///     once (HTTP/2 uses one connection per host).
    public convenience init(
        proxy: ProxySettings = ProxySettings(),
        connectTimeout: Duration = .seconds(10),
        readTimeout: Duration = .seconds(30),
        maxConnectionsPerHost: Int = 16
    ) {
        self.init(proxy: proxy, tls: TLSConfiguration.makeClientConfiguration(), connectTimeout: connectTimeout,
                  readTimeout: readTimeout, maxConnectionsPerHost: maxConnectionsPerHost)
    }

    /// Creates the transport, trusting the CAs `trust` names.
    ///
    /// - Parameters:
    ///   - trust: the CAs server certificates may chain to, e.g. `.fromEnvironment(adding: ["corp-ca.pem"])`.
    ///   - proxy: as in ``init(proxy:connectTimeout:readTimeout:maxConnectionsPerHost:)``.
    ///   - connectTimeout: as there.
    ///   - readTimeout: as there.
    ///   - maxConnectionsPerHost: as there.
    /// - Throws: ``CertificateTrustError`` when a CA file or folder cannot be read or holds no certificate.
    public convenience init(
        trust: CertificateTrust,
        proxy: ProxySettings = ProxySettings(),
        connectTimeout: Duration = .seconds(10),
        readTimeout: Duration = .seconds(30),
        maxConnectionsPerHost: Int = 16
    ) throws {
        self.init(proxy: proxy, tls: try trust.tlsConfiguration(), connectTimeout: connectTimeout,
                  readTimeout: readTimeout, maxConnectionsPerHost: maxConnectionsPerHost)
    }

    /// - Parameter resolvedNames: host names answered from this table instead of DNS when private
    ///   networks are denied: how tests make a public-looking name lead to 127.0.0.1.
    init(
        proxy: ProxySettings, tls: TLSConfiguration, connectTimeout: Duration, readTimeout: Duration,
        maxConnectionsPerHost: Int, resolvedNames: [String: IPAddress] = [:]
    ) {
        var tls = tls
        // How long closing a TLS connection waits for the server's close_notify (NIOSSL's default:
        // 5 s). A server that never sends one (one busy pushing an endless body at us, say) would
        // otherwise keep every connection we drop, and so shutdown() and the end of a run, 5 s
        // past the image's failure. Nothing depends on the server's close_notify: a response's end
        // is known from its framing.
        tls.shutdownTimeout = .milliseconds(250)
        let eventLoop = eventLoopGroup.next()
        let makeClient: @Sendable (HTTPClient.Configuration.Proxy?) -> HTTPClient = { [tls] proxy in
            var configuration = HTTPClient.Configuration(
                tlsConfiguration: tls,
                redirectConfiguration: .disallow,
                timeout: .init(connect: TimeAmount(connectTimeout), read: TimeAmount(readTimeout)),
                connectionPool: .init(
                    idleTimeout: .seconds(60),
                    concurrentHTTP1ConnectionsPerHostSoftLimit: max(1, maxConnectionsPerHost)),
                proxy: proxy,
                decompression: .disabled)
            // ALPN offers h2 and http/1.1 (AsyncHTTPClient's default, said here because the
            // downloader's per-host limits depend on it).
            configuration.httpVersion = .automatic
            // A refused or failed connect fails the request at once (as `.connection`) instead of
            // being retried by the pool until the deadline: retrying is the downloader's decision.
            configuration.connectionPool.retryConnectionEstablishment = false
            // No tracing spans: with none configured, AsyncHTTPClient still made a span and parsed
            // each URL again for its attributes, work done for every request and never used.
            configuration.tracing.tracer = nil
            return HTTPClient(eventLoopGroup: eventLoop, configuration: configuration)
        }
        self.proxy = proxy
        self.direct = makeClient(nil)
        var tunnelled: [ProxySettings.Endpoint: HTTPClient] = [:]
        var forwarded: [ProxySettings.Endpoint: ForwardProxyClient] = [:]
        if let endpoint = proxy.httpProxy {
            forwarded[endpoint] = ForwardProxyClient(
                group: eventLoop, host: endpoint.host, port: endpoint.port,
                connectTimeout: TimeAmount(connectTimeout), maxIdleConnections: maxConnectionsPerHost)
        }
        if let endpoint = proxy.httpsProxy {
            tunnelled[endpoint] = makeClient(.server(host: endpoint.host, port: endpoint.port))
        }
        self.tunnelled = tunnelled
        self.forwarded = forwarded
        self.diagnosis = CertificateDiagnosis(group: eventLoop)
        self.guards = AddressGuards(group: eventLoop, connectTimeout: connectTimeout, resolvedNames: resolvedNames, makeClient: makeClient)
    }

    deinit {
        // A safety net: ``shutdown()`` is the contract, but a transport dropped without it (say, after
        // an early throw) must neither leak its connections and thread nor trip AsyncHTTPClient's
        // debug-build precondition on clients that are deinitialised while running. The loop is
        // ended only after everything on it, or a client's shutdown would wait on it forever.
        guard !isShutDown.withLockedValue({ $0 }) else { return }
        let parts = shutdownParts
        Task { await parts.shutDown() }
    }

    /// Sends one GET; see ``ImageTransport/send(_:)``.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try Task.checkCancellation()
        // Checked here because work handed to an ended event loop is dropped, not failed.
        guard !isShutDown.withLockedValue({ $0 }) else { throw TransportError.connection("the transport is shut down") }
        let isHTTPS = request.url.hasPrefixIgnoringASCIICase("https://")
        guard isHTTPS || request.url.hasPrefixIgnoringASCIICase("http://") else {
            throw TransportError.invalidRequest("not an absolute http(s) URL: \(request.url)")
        }
        // AsyncHTTPClient would refuse them too, but in a connection error's words.
        try request.checkHeaders()
        let remaining = request.deadline - ContinuousClock.now
        guard remaining > .zero else { throw TransportError.timedOut(phase: nil) }

        var route = self.route(for: request.url, isHTTPS: isHTTPS)
        if request.privateNetworks.isRestricted {
            if case .direct = route {
                let guarded = try await guards.entry(for: request.privateNetworks)
                route = .guarded(guarded.client, guarded.proxy)
            } else {
                // The user's proxy connects, to whatever its own lookup of the name gives, and
                // AsyncHTTPClient cannot ask it to connect to an address checked here (it sends
                // `CONNECT name:port`): a check of the name alone is what a DNS answer that changes
                // gets past, so the request is refused instead (libcurl's transport pins it).
                throw TransportError.invalidRequest(
                    "private networks are denied, and through a proxy this HTTP client cannot choose the address connected to")
            }
        }
        if case .forwarded(let proxyClient) = route {
            do {
                return try await proxyClient.send(request)
            } catch {
                throw Self.transportError(for: error)
            }
        }
        let client: HTTPClient
        switch route {
        case .direct: client = direct
        case .tunnelled(let tunnel), .guarded(let tunnel, _): client = tunnel
        case .forwarded: preconditionFailure("handled above")
        }
        do {
            return try await exchange(request, on: client, deadline: NIODeadline.now() + TimeAmount(remaining))
        } catch {
            if case .guarded(_, let guardProxy) = route, let target = URLAuthority(request.url),
               let refusal = Self.guardError(error, outcome: guardProxy.outcome(host: target.host, port: target.port), host: target.host) {
                throw refusal
            }
            if let refusal = HandshakeRefusal(error), let target = URLAuthority(request.url) {
                let host = target.host
                let problem: CertificateProblem
                if case .direct = route {
                    problem = await diagnosis.problem(host: host, port: target.port, hostnameMismatch: refusal == .hostname)
                } else {
                    problem = CertificateDiagnosis.throughProxy(hostnameMismatch: refusal == .hostname)
                }
                throw TransportError.certificate(host: host, problem: problem)
            }
            throw Self.transportError(for: error)
        }
    }

    /// True: AsyncHTTPClient fails a request when its deadline passes, and so does the proxy client.
    public var keepsDeadlines: Bool { true }

    /// True: when private networks are denied, requests go through an in-process `CONNECT` proxy
    /// that connects only to allowed addresses of what DNS answers (through a user's proxy, which
    /// connects by itself to an address it looks up, requests are refused).
    public var checksConnectedAddresses: Bool { true }

    /// Shuts the clients down, closing their connections, and ends the transport's event loop
    /// thread; requests still in flight fail. Calls after the first return at once.
    public func shutdown() async {
        let wasShutDown = isShutDown.withLockedValue { isShutDown in
            defer { isShutDown = true }
            return isShutDown
        }
        guard !wasShutDown else { return }
        await shutdownParts.shutDown()
    }

    private var shutdownParts: ShutdownParts {
        ShutdownParts(clients: [direct] + Array(tunnelled.values), forwarded: Array(forwarded.values),
                      guards: guards, eventLoopGroup: eventLoopGroup)
    }

    /// What a shutdown ends, in the order it must: the clients and proxies, then the loop they run on.
    private struct ShutdownParts: Sendable {
        let clients: [HTTPClient]
        let forwarded: [ForwardProxyClient]
        let guards: AddressGuards
        let eventLoopGroup: MultiThreadedEventLoopGroup

        func shutDown() async {
            for client in clients { try? await client.shutdown() }
            for client in forwarded { client.shutdown() }
            await guards.shutdown()
            try? await eventLoopGroup.shutdownGracefully()
        }
    }

    private enum Route {
        case direct
        case tunnelled(HTTPClient)
        case forwarded(ForwardProxyClient)
        /// Through the in-process proxy that checks addresses.
        case guarded(HTTPClient, AddressGuardProxy)
    }

    /// The error for a request through the address guard that failed at its `CONNECT`: refused
    /// (with the address and why) or unreachable. Nil for any other failure.
    private static func guardError(_ error: any Error, outcome: AddressGuardProxy.Outcome?, host: String) -> TransportError? {
        guard let outcome, let clientError = error as? HTTPClientError, clientError == .invalidProxyResponse else { return nil }
        switch outcome {
        case .denied(let address, let kind):
            return .deniedAddress(host: host, address: address.description, kind: kind)
        case .unreachable(let reason):
            return .connection(reason)
        }
    }

    private func route(for url: String, isHTTPS: Bool) -> Route {
        guard let (host, port) = proxy.proxy(for: url) else { return .direct }
        let endpoint = ProxySettings.Endpoint(host: host, port: port)
        if isHTTPS { return tunnelled[endpoint].map(Route.tunnelled) ?? .direct }
        return forwarded[endpoint].map(Route.forwarded) ?? .direct
    }

    /// Sends the request and collects the response. The deadline covers the whole exchange:
    /// AsyncHTTPClient fails the request when it passes, head or body.
    private func exchange(
        _ request: TransportRequest, on client: HTTPClient, deadline: NIODeadline
    ) async throws -> TransportResponse {
        var outgoing = try HTTPClient.Request(url: request.url, method: .GET)
        for header in request.headers {
            outgoing.headers.add(name: header.name, value: header.value)
        }
        let collector = ImageResponseCollector(maxBytes: request.maxBytes, budget: request.budget)
        // Submitted from the event loop, where AsyncHTTPClient does the rest of the work: from a
        // task's thread, handing the request to the pool, arming its deadline and waiting for its
        // future each crossed to the loop on their own; from the loop this is one crossing in.
        let loop = eventLoopGroup.next()
        let submission = NIOLoopBoundBox.makeEmptyBox(valueType: Submission.self, eventLoop: loop)
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    // Handed over only while the loop is sure to run it: an ended loop drops work
                    // (and the continuation with it). shutdown() marks the transport before it
                    // ends the loop, and the loop runs what it was given before it ends.
                    let handedOver = onLoopUnlessShutDown(loop) { [outgoing] in
                        if case .cancelled = submission.value {
                            continuation.resume(throwing: CancellationError())
                            return
                        }
                        let task = client.execute(request: outgoing, delegate: collector, deadline: deadline)
                        submission.value = .sent(task)
                        task.futureResult.whenComplete { continuation.resume(with: $0) }
                    }
                    if !handedOver { continuation.resume(throwing: TransportError.connection("the transport is shut down")) }
                }
            } onCancel: {
                // Once shut down, the clients have failed every request already.
                onLoopUnlessShutDown(loop) {
                    if case .sent(let task) = submission.value {
                        task.cancel()
                    } else {
                        submission.value = .cancelled
                    }
                }
            }
        } catch let error as TransportError {
            throw error
        } catch let error as HTTPClientError where !Task.isCancelled && Self.isTimeout(error) {
            throw TransportError.timedOut(phase: collector.phase)
        } catch where !Task.isCancelled {
            // e.g. the server closed the connection (or reset the stream) before Content-Length
            // bytes; but a body cut short by the deadline is a time-out.
            if let (received, declared) = collector.truncation, (error as? HTTPClientError) != .deadlineExceeded {
                throw TransportError.connection("truncated: \(received) of \(declared) bytes (\(Self.describe(error)))")
            }
            throw error
        }
    }

    /// Runs `work` on `loop` unless the transport is shut down; whether it will run.
    @discardableResult
    private func onLoopUnlessShutDown(_ loop: any EventLoop, _ work: @escaping @Sendable () -> Void) -> Bool {
        isShutDown.withLockedValue { isShutDown in
            if !isShutDown { loop.execute(work) }
            return !isShutDown
        }
    }

    /// A request as the event loop sees it (nil: not yet sent).
    private enum Submission {
        case sent(HTTPClient.Task<TransportResponse>)
        /// Cancelled before it could be sent: it never will be.
        case cancelled
    }

    /// Whether AsyncHTTPClient gave up for lack of time.
    private static func isTimeout(_ error: HTTPClientError) -> Bool {
        switch error {
        case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .getConnectionFromPoolTimeout,
            .httpProxyHandshakeTimeout, .socksHandshakeTimeout, .tlsHandshakeTimeout:
            true
        default:
            false
        }
    }

    /// Maps whatever AsyncHTTPClient or NIO threw to `TransportError` (or `CancellationError`).
    static func transportError(for error: any Error) -> any Error {
        if let error = error as? TransportError { return error }
        if error is CancellationError || Task.isCancelled { return CancellationError() }
        if let error = error as? HTTPParserError {
            return TransportError.invalidResponse(describe(error))
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .cancelled where Task.isCancelled:
                return CancellationError()
            case .connectTimeout, .getConnectionFromPoolTimeout, .httpProxyHandshakeTimeout, .socksHandshakeTimeout,
                .tlsHandshakeTimeout:
                return TransportError.timedOut(phase: .connecting)
            case _ where isTimeout(error):
                return TransportError.timedOut(phase: nil)
            case .invalidURL, .emptyHost, .emptyScheme:
                return TransportError.invalidRequest(error.shortDescription)
            default:
                return TransportError.connection(describe(error))
            }
        }
        return TransportError.connection(describe(error))
    }

    /// A short, readable reason for a connection-level error.
    private static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError { return error.shortDescription.lowercased() }
        // NIO's own text names the system call ("read(descriptor:pointer:size:): …"): the errno's
        // message is what a person needs.
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)) }
        if let error = error as? HTTPParserError {
            // NIO's HTTP/1 decoder stops at 80 KB of head: a header line of a megabyte, or header
            // fields that never end, arrive here.
            return error == .headerOverflow ? "response headers too large (over 80 KB)" : "\(error)"
        }
        return String(describing: error)
    }
}
#endif
