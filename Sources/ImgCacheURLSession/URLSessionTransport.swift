public import ImgCache
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Network) && !os(macOS)
import Network
#endif

/// An ``ImageTransport`` on Foundation's `URLSession`: no dependency beyond Foundation, so it suits
/// apps. The command line uses libcurl (`ImgCacheCurl`) or AsyncHTTPClient (`ImgCacheHTTPClient`) instead.
///
/// One ephemeral session (no cookies, no URL cache, so conditional requests reach the server as
/// the downloader wrote them) whose delegate refuses redirects, enforces `maxBytes` while the body
/// arrives and collects it. The deadline is enforced by cancelling the task when it passes (and
/// the task's `timeoutInterval` as a backstop).
///
/// Differences from the AsyncHTTPClient transport that callers may notice:
/// - `URLSession` asks for compressed bodies (`Accept-Encoding`) and decompresses them, so
///   `maxBytes` counts decoded bytes and `Content-Encoding` / `Content-Length` describe the
///   encoded ones.
/// - Repeated response header fields come back joined into one, comma-separated.
/// - On Linux it adds `Accept-Language` and (unless the request sets one) a `User-Agent`.
public final class URLSessionTransport: ImageTransport {
    private let session: URLSession
    private let delegate: TransportSessionDelegate

    /// Creates the transport and its session.
    ///
    /// - Parameters:
    ///   - proxy: nil (the default) leaves the platform's choice: the system proxy settings on
    ///     Apple platforms; on Linux, libcurl's own reading of `http_proxy`, `https_proxy` and
    ///     `no_proxy`. Given settings are applied through
    ///     `URLSessionConfiguration.connectionProxyDictionary` on macOS and through
    ///     `proxyConfigurations` on iOS 17 and later (one `CONNECT` proxy for every request: the
    ///     https one, or the http one when there is no other); FoundationNetworking on Linux
    ///     ignores both, so there only the environment variables take effect.
    ///   - maxConnectionsPerHost: the most connections open to one host at once.
    public init(proxy: ProxySettings? = nil, maxConnectionsPerHost: Int = 16) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpMaximumConnectionsPerHost = max(1, maxConnectionsPerHost)
        if let proxy {
            #if canImport(Network) && !os(macOS)
            // CFNetwork's HTTPS keys are macOS's; elsewhere Apple's proxy API is Network's.
            if #available(iOS 17, tvOS 17, watchOS 10, visionOS 1, *), let endpoint = proxy.httpsProxy ?? proxy.httpProxy {
                var proxyConfiguration = ProxyConfiguration(
                    httpCONNECTProxy: .hostPort(host: .init(endpoint.host), port: .init(integerLiteral: UInt16(clamping: endpoint.port))))
                proxyConfiguration.excludedDomains = proxy.exceptionDomains
                configuration.proxyConfigurations = [proxyConfiguration]
            } else {
                configuration.connectionProxyDictionary = proxy.connectionProxyDictionary
            }
            #else
            configuration.connectionProxyDictionary = proxy.connectionProxyDictionary
            #endif
        }
        let delegate = TransportSessionDelegate()
        self.delegate = delegate
        // nil delegate queue: the session makes a serial one, so delegate calls for one task are ordered.
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit {
        // The session holds its delegate (and itself) until invalidated: a transport dropped
        // without shutdown() must not leak them. No send can be running, since each holds `self`.
        if delegate.close() { session.finishTasksAndInvalidate() }
    }

    /// Sends one GET; see ``ImageTransport/send(_:)``.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try Task.checkCancellation()
        guard let url = URL(string: request.url), BrowserURL(request.url)?.isHTTP == true else {
            throw TransportError.invalidRequest("not an absolute http(s) URL: \(request.url)")
        }
        try request.checkHeaders()
        let remaining = request.deadline - ContinuousClock.now
        guard remaining > .zero else { throw TransportError.timedOut(phase: nil) }

        // FoundationNetworking truncates timeoutInterval to whole seconds (and treats it as a timer
        // for the whole transfer); the racing cancellation below is what keeps the exact deadline,
        // so the interval is rounded up with a margin and serves only as a backstop.
        var urlRequest = URLRequest(
            url: url, cachePolicy: .reloadIgnoringLocalCacheData,
            timeoutInterval: (remaining.secondsValue).rounded(.up) + 1)
        urlRequest.httpMethod = "GET"
        for header in request.headers {
            urlRequest.addValue(header.value, forHTTPHeaderField: header.name)
        }

        // Creating a task on an invalidated session is a programming error to URLSession, so the
        // task is made only while the transport is open (and shutdown() waits for that).
        let session = self.session
        guard let task = delegate.whileOpen({ session.dataTask(with: urlRequest) }) else {
            throw TransportError.connection("the transport is shut down")
        }
        let id = task.taskIdentifier
        let delegate = self.delegate
        delegate.begin(id, maxBytes: request.maxBytes, budget: request.budget)

        // A Dispatch timer rather than a sleeping Task: it fires on time even when Swift
        // concurrency's threads are all busy, so a late body is never reported as a success.
        let timer = DispatchWorkItem {
            if delegate.timeOut(id) { task.cancel() }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + remaining.secondsValue, execute: timer)
        defer { timer.cancel() }

        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if delegate.attach(continuation, to: id) { task.resume() }
            }
        } onCancel: {
            if delegate.fail(id, .cancelled) { task.cancel() }
        }
    }

    /// True: a Dispatch timer fails the request when its deadline passes.
    public var keepsDeadlines: Bool { true }

    /// Cancels what is in flight and invalidates the session.
    public func shutdown() async {
        if delegate.close() { session.invalidateAndCancel() }
    }
}

extension Duration {
    /// The duration in (fractional) seconds.
    var secondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
