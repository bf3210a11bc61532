#if CommandLine
#if os(Linux) && canImport(CCurl)
import CCurl
public import ImgCache
public import ImgCacheHTTPClient
import NIOConcurrencyHelpers
import Foundation
import NIOPosix

/// An ``ImageTransport`` on libcurl's multi interface: what the command line uses on Linux.
///
/// One thread runs every transfer, as `curl --parallel` does, with no hop to another thread per
/// response: on the same 2,000-image fetch it takes less CPU time than ``AsyncHTTPClientTransport``
/// (the figures are in Benchmarks/HISTORY.md). It keeps the same behaviour:
/// - HTTPS offers HTTP/2 through ALPN, and a host's requests share its HTTP/2 connection; each
///   response reports the version it came over.
/// - Certificates are verified in full against ``CertificateTrust``; a refused one fails with
///   ``TransportError/certificate(host:problem:)`` saying what is wrong with it.
/// - Redirects are not followed, no `Accept-Encoding` is sent, and a body is counted against
///   `maxBytes` as it arrives.
/// - Through an HTTP proxy, `http` URLs are sent in absolute form and `https` ones through a
///   `CONNECT` tunnel; the environment's proxy variables are not read by libcurl (``ProxySettings`` decides).
/// - When private networks are denied, the address of every connection is checked as it is
///   opened, after DNS. Through a proxy, the host's addresses are checked before the request, and
///   the proxy is asked to connect to the address checked (`CONNECT 93.184.215.14:443`, plain
///   http tunnelled too), never to the name.
public final class CurlTransport: ImageTransport {
    private let options: CurlTransferTable.Options
    private let proxy: ProxySettings
    private let trustFiles: CurlTrustFiles.OnFirstUse
    /// On NIO's shared loops, which are started only when a certificate is refused.
    private let diagnosis = LazyDiagnosis()
    private let state = NIOLockedValueBox(State())

    private struct State {
        /// A thread, and so a connection cache, for each private-network policy requests came
        /// with, made when the first of them is sent: a connection opened for a request that may
        /// reach a private address is never reused by one that may not.
        var threads: [PrivateNetworkAccess: CurlMultiThread] = [:]
        /// Whether ``shutdown()`` has begun.
        var isShutDown = false
    }

    /// Creates the transport and its thread (ended by ``shutdown()``).
    ///
    /// - Parameters:
    ///   - trust: the CAs server certificates may chain to; the system's by default.
    ///   - proxy: which requests go through which proxy; direct connections by default.
    ///   - connectTimeout: the longest wait for a TCP (and TLS) connection to be set up.
    ///   - readTimeout: the longest time receiving less than a byte a second (in whole seconds).
    ///
    /// Connections per host are as many as requests in flight to it over HTTP/1.1 (the downloader
    /// keeps to ``DownloadPolicy/perHostConcurrency``), one over HTTP/2.
    /// - Throws: ``CurlUnavailableError`` when libcurl cannot be loaded; ``CertificateTrustError``
    ///   when a CA file or folder cannot be read or holds no certificate.
    public convenience init(
        trust: CertificateTrust = .system,
        proxy: ProxySettings = ProxySettings(),
        connectTimeout: Duration = .seconds(10),
        readTimeout: Duration = .seconds(30)
    ) throws {
        try self.init(trust: trust, proxy: proxy, connectTimeout: connectTimeout, readTimeout: readTimeout, resolvedNames: [:])
    }

    /// - Parameters:
    ///   - resolvedNames: host names answered from this table instead of DNS: how tests make a
    ///     public-looking name lead to 127.0.0.1.
    ///   - systemCAs: the system's CA bundle and folder, when not libcurl's defaults (tests).
    init(
        trust: CertificateTrust, proxy: ProxySettings, connectTimeout: Duration, readTimeout: Duration,
        resolvedNames: [String: IPAddress], systemCAs: (file: String?, folder: String?)? = nil
    ) throws {
        if let reason = imgcache_curl_load() {
            throw CurlUnavailableError(reason: String(cString: reason), isInstalled: imgcache_curl_was_found())
        }
        try trust.validate()
        let trustFiles = CurlTrustFiles.OnFirstUse(trust, system: systemCAs ?? CurlTrustFiles.libcurlDefaults)
        self.trustFiles = trustFiles
        self.proxy = proxy
        options = CurlTransferTable.Options(trust: trustFiles, connectTimeout: connectTimeout, readTimeout: readTimeout,
                                          resolvedNames: resolvedNames)
    }

    deinit {
        // A safety net: ``shutdown()`` is the contract.
        let threads = state.withLockedValue { $0.isShutDown ? [] : Array($0.threads.values) }
        for thread in threads { thread.stopWithoutWaiting() }
        if !threads.isEmpty { trustFiles.remove() }
    }

    /// The thread for requests with `access`, made on first use; nil once shut down.
    private func thread(for access: PrivateNetworkAccess) -> CurlMultiThread? {
        state.withLockedValue { state in
            guard !state.isShutDown else { return nil }
            if let thread = state.threads[access] { return thread }
            let thread = CurlMultiThread(options: options)
            state.threads[access] = thread
            return thread
        }
    }

    /// Starts `work` in a task on the thread for requests with `access` (on the cooperative pool
    /// once the transport is shut down); see ``ImageTransport/startTask(for:_:)``.
    public func startTask(for access: PrivateNetworkAccess, _ work: sending @escaping () async -> Void) -> Task<Void, Never> {
        guard let thread = thread(for: access), thread.beginUse() else { return Task(operation: work) }
        return Task(executorPreference: thread) {
            await work()
            thread.endUse()
        }
    }

    /// Runs `operation` preferring the thread for requests with `access`; see ``ImageTransport/preferringThread(for:_:)``.
    public func preferringThread<T: Sendable>(for access: PrivateNetworkAccess, _ operation: () async -> T) async -> T {
        guard let thread = thread(for: access), thread.beginUse() else { return await operation() }
        defer { thread.endUse() }
        return await withTaskExecutorPreference(thread, operation: operation)
    }

    /// Sends one GET; see ``ImageTransport/send(_:)``.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try Task.checkCancellation()
        guard Self.isHTTP(request.url) else {
            throw TransportError.invalidRequest("not an absolute http(s) URL: \(request.url)")
        }
        guard request.deadline > ContinuousClock.now else { throw TransportError.timedOut(phase: nil) }
        let proxyEndpoint = proxy.proxy(for: request.url)
        var pinnedAddress: IPAddress?
        if proxyEndpoint != nil, request.privateNetworks.isRestricted {
            // The proxy connects, so the host's addresses are checked here, and the proxy is told
            // to connect to the one checked.
            pinnedAddress = try await self.pinnedAddress(for: request)
        }
        guard let thread = thread(for: request.privateNetworks) else {
            throw TransportError.connection("the transport is shut down")
        }
        let transfer = CurlTransfer(request: request, proxy: Self.url(of: proxyEndpoint), pinnedAddress: pinnedAddress)
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    transfer.completion = { continuation.resume(with: $0) }
                    if !thread.submit(transfer) {
                        transfer.finish(.failure(TransportError.connection("the transport is shut down")))
                    }
                }
            } onCancel: {
                thread.cancel(transfer)
            }
        } catch let failure as CurlFailure {
            throw await transportError(for: failure, request: request, throughProxy: proxyEndpoint != nil)
        }
    }

    /// Sends one GET with no task waiting for it; see ``ImageTransport/send(_:completion:)``. Not
    /// for a request that `send` refuses at once, nor one through a proxy with private networks
    /// denied (whose host is looked up and checked first).
    public func send(_ request: TransportRequest,
                     completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void) -> (@Sendable () -> Void)? {
        guard Self.isHTTP(request.url), request.deadline > ContinuousClock.now else { return nil }
        let proxyEndpoint = proxy.proxy(for: request.url)
        guard proxyEndpoint == nil || !request.privateNetworks.isRestricted,
              let thread = thread(for: request.privateNetworks) else { return nil }
        let transfer = CurlTransfer(request: request, proxy: Self.url(of: proxyEndpoint))
        transfer.completion = { [self] result in
            guard case .failure(let failure as CurlFailure) = result else { return completion(result) }
            // Worded as `send` words it, which may take another look at the server: in a task on
            // this thread, as the rest of a failed image's exchange goes on.
            _ = startTask(for: request.privateNetworks) {
                completion(.failure(await self.transportError(for: failure, request: request, throughProxy: proxyEndpoint != nil)))
            }
        }
        guard thread.submit(transfer) else { return nil }
        return { thread.cancel(transfer) }
    }

    /// The checked address a proxy is to connect to for `request` (see
    /// ``HostAddressCheck/pinnedAddress(for:access:)``); a host in the resolved-names table is at
    /// the address the table gives it, as it is for a direct connection.
    private func pinnedAddress(for request: TransportRequest) async throws -> IPAddress {
        guard let authority = URLAuthority(request.url), let address = options.resolvedNames[authority.host.lowercased()] else {
            return try await HostAddressCheck.pinnedAddress(for: request.url, access: request.privateNetworks)
        }
        try HostAddressCheck.check([address], of: authority.host, access: request.privateNetworks)
        return address
    }

    /// Whether `url` is an absolute http(s) URL, the only kind either way of sending takes.
    private static func isHTTP(_ url: String) -> Bool {
        url.hasPrefixIgnoringASCIICase("https://") || url.hasPrefixIgnoringASCIICase("http://")
    }

    /// The URL libcurl takes for a proxy (`http://host:port`), nil for none.
    private static func url(of proxy: (host: String, port: Int)?) -> String? {
        proxy.map { endpoint in
            endpoint.host.contains(":") ? "http://[\(endpoint.host)]:\(endpoint.port)" : "http://\(endpoint.host):\(endpoint.port)"
        }
    }

    /// True: libcurl ends a transfer when its deadline passes (`CURLOPT_TIMEOUT_MS`), and the
    /// transport ends one that libcurl holds back past it.
    public var keepsDeadlines: Bool { true }

    /// True: each connection's address is checked as it is opened (through a user's proxy, which
    /// connects by itself, the address checked before the request is the one the proxy is told
    /// to connect to).
    public var checksConnectedAddresses: Bool { true }

    /// Fails what is in flight, closes the connections and ends the transport's threads. Calls
    /// after the first return at once.
    public func shutdown() async {
        let threads = state.withLockedValue { state -> [CurlMultiThread]? in
            guard !state.isShutDown else { return nil }
            state.isShutDown = true
            return Array(state.threads.values)
        }
        guard let threads else { return }
        for thread in threads { await thread.stop() }
        trustFiles.remove()
    }

    /// Words a failed transfer as a `TransportError`.
    private func transportError(for failure: CurlFailure, request: TransportRequest, throughProxy: Bool) async -> TransportError {
        let code = CURLcode(failure.code)
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            let phase: TimeoutPhase = !failure.connected ? .connecting
                : !failure.headReceived ? .waitingForResponse
                : .receivingBody(received: failure.bodyReceived, expected: failure.declaredLength)
            return .timedOut(phase: phase)
        case CURLE_FILESIZE_EXCEEDED:
            return .tooLarge(limit: request.maxBytes)
        case CURLE_WRITE_ERROR where failure.exceededLimit:
            return .tooLarge(limit: request.maxBytes)
        case CURLE_WRITE_ERROR where failure.exceededBudget:
            return .overBudget(limit: failure.budgetLimit)
        case CURLE_WRITE_ERROR where failure.headTooLarge:
            return .invalidResponse("response headers too large (over \(CurlTransfer.maxHeadBytes / 1024) KB)")
        // A header line over libcurl's own limit (100 KB) is refused before the header callback
        // sees it: libcurl 7.x says "out of memory", 8.x CURLE_TOO_LARGE (100).
        case CURLE_OUT_OF_MEMORY where !failure.headReceived, CURLcode(100) where !failure.headReceived:
            return .invalidResponse("response headers too large (over \(CurlTransfer.maxHeadBytes / 1024) KB)")
        case CURLE_WRITE_ERROR where failure.headHasControlCharacter:
            return .invalidResponse("a response header holds a control character")
        case CURLE_COULDNT_CONNECT where failure.deniedAddress != nil:
            let host = URLAuthority(request.url)?.host ?? request.url
            return .deniedAddress(host: host, address: failure.deniedAddress!.address.description, kind: failure.deniedAddress!.kind)
        case CURLE_PEER_FAILED_VERIFICATION:
            guard let target = URLAuthority(request.url) else { return .connection(failure.message) }
            // OpenSSL's X509_V_ERR_HOSTNAME_MISMATCH or X509_V_ERR_IP_ADDRESS_MISMATCH, or libcurl's
            // own check of the names after a trusted chain ("no alternative certificate subject name matches…").
            let hostnameMismatch = [62, 64].contains(failure.verifyResult) || failure.message.contains("subject name")
            guard !throughProxy else {
                return .certificate(host: target.host, problem: CertificateDiagnosis.throughProxy(hostnameMismatch: hostnameMismatch))
            }
            guard !request.privateNetworks.isRestricted else {
                // The second look connects on its own, without the address check: the problem is
                // said as for a chain that could not be looked at.
                return .certificate(host: target.host, problem: CertificateDiagnosis.explain(
                    [], host: target.host, hostnameMismatch: hostnameMismatch, now: Date()))
            }
            let problem = await diagnosis.value.problem(host: target.host, port: target.port, hostnameMismatch: hostnameMismatch)
            return .certificate(host: target.host, problem: problem)
        // A body cut short: over HTTP/1.1 libcurl says so, over HTTP/2 the stream ends in a reset.
        case CURLE_HTTP2_STREAM where failure.declaredLength.map { failure.bodyReceived < $0 } ?? false, CURLE_PARTIAL_FILE:
            if let declared = failure.declaredLength {
                return .connection("truncated: \(failure.bodyReceived) of \(declared) bytes (\(failure.message))")
            }
            return .connection(failure.message)
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            return .invalidRequest(failure.message)
        case CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_CONTENT_ENCODING:
            return .invalidResponse(failure.message)
        default:
            return .connection(failure.message)
        }
    }
}

/// A ``CertificateDiagnosis`` made on first use.
private final class LazyDiagnosis: Sendable {
    private let made = NIOLockedValueBox<CertificateDiagnosis?>(nil)

    var value: CertificateDiagnosis {
        made.withLockedValue { made in
            if let made { return made }
            let diagnosis = CertificateDiagnosis(group: MultiThreadedEventLoopGroup.singleton)
            made = diagnosis
            return diagnosis
        }
    }
}
#endif
#endif
