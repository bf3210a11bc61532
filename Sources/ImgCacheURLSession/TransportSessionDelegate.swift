import ImgCache
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session delegate of ``URLSessionTransport``: keeps one exchange's state per task, refuses
/// redirects, enforces the byte limit as data arrives, and resumes the caller when the task ends.
///
/// `URLSession` calls it on its delegate queue while `send` (attach, fail) runs on other threads,
/// so every access to `exchanges` holds `lock`; that is what makes `@unchecked Sendable` sound.
/// Continuations are resumed outside the lock.
final class TransportSessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// Why the transport stopped a task itself.
    enum Failure: Sendable {
        case transport(TransportError)
        case cancelled
    }

    private struct Exchange {
        var maxBytes: Int
        /// The body's bytes counted against the request's budget, when it has one.
        var charge: BudgetCharge?
        var continuation: CheckedContinuation<TransportResponse, any Error>?
        var failure: Failure?
        var body: [UInt8] = []
        /// Whether the response head has arrived, and the body length it declares, if any.
        var receivedHead = false
        var declaredLength: Int?
        /// From the task's metrics, where the platform collects them (Apple platforms do; not every
        /// FoundationNetworking does).
        var httpVersion: HTTPVersion?
    }

    private let lock = NSLock()
    private var exchanges: [Int: Exchange] = [:]
    private var isClosed = false

    // MARK: called by the transport

    /// Runs `body` (making a task) unless the transport is closed; nil when it is.
    func whileOpen<T>(_ body: () -> T) -> T? {
        lock.withLock { isClosed ? nil : body() }
    }

    /// Marks the transport closed; returns whether it was open (so the session is invalidated once).
    func close() -> Bool {
        lock.withLock {
            defer { isClosed = true }
            return !isClosed
        }
    }

    /// Registers a task before it starts, so that a failure recorded early (cancellation,
    /// deadline) is not lost.
    func begin(_ id: Int, maxBytes: Int, budget: ByteBudget?) {
        lock.withLock { exchanges[id] = Exchange(maxBytes: maxBytes, charge: budget?.charge()) }
    }

    /// Hands over the continuation. Returns whether the task should be started: false when a
    /// failure was recorded first or the transport was closed meanwhile, in which case the
    /// continuation has already been resumed.
    func attach(_ continuation: CheckedContinuation<TransportResponse, any Error>, to id: Int) -> Bool {
        let failure: Failure? = lock.withLock {
            let closed: Failure? = isClosed ? .transport(.connection("the transport is shut down")) : nil
            if let failure = exchanges[id]?.failure ?? closed {
                exchanges[id] = nil
                return failure
            }
            exchanges[id]?.continuation = continuation
            return nil
        }
        guard let failure else { return true }
        continuation.resume(throwing: Self.error(for: failure))
        return false
    }

    /// Records why the transport stops the task (the first reason wins). Returns whether the task
    /// is still in flight and so should be cancelled by the caller.
    @discardableResult
    func fail(_ id: Int, _ failure: Failure) -> Bool {
        lock.withLock {
            guard exchanges[id] != nil else { return false }
            if exchanges[id]?.failure == nil { exchanges[id]?.failure = failure }
            return true
        }
    }

    /// Records that the deadline passed, with what was stalled. Returns whether the task is still
    /// in flight and so should be cancelled by the caller.
    func timeOut(_ id: Int) -> Bool {
        lock.withLock {
            guard let exchange = exchanges[id] else { return false }
            if exchange.failure == nil {
                let phase: TimeoutPhase = exchange.receivedHead
                    ? .receivingBody(received: exchange.body.count, expected: exchange.declaredLength)
                    : .beforeResponse
                exchanges[id]?.failure = .transport(.timedOut(phase: phase))
            }
            return true
        }
    }

    // MARK: URLSessionDataDelegate

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // nil: the 3xx itself becomes the task's response; the downloader applies its own policy.
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let declared = response.expectedContentLength
        let tooLarge: Bool = lock.withLock {
            exchanges[dataTask.taskIdentifier]?.receivedHead = true
            exchanges[dataTask.taskIdentifier]?.declaredLength = declared >= 0 ? Int(declared) : nil
            guard let exchange = exchanges[dataTask.taskIdentifier], exchange.failure == nil,
                let http = response as? HTTPURLResponse, Self.mayHaveBody(http.statusCode),
                declared > Int64(exchange.maxBytes)
            else { return false }
            exchanges[dataTask.taskIdentifier]?.failure = .transport(.tooLarge(limit: exchange.maxBytes))
            return true
        }
        completionHandler(tooLarge ? .cancel : .allow)
        // FoundationNetworking ignores the disposition (libcurl cannot pause there), so cancel too.
        if tooLarge { dataTask.cancel() }
    }

    /// Counts the body against the limit and cancels the task past it. Bytes past the limit are
    /// dropped, so memory stays bounded. On Linux the cancel is queued on FoundationNetworking's
    /// work queue, which every session of the process shares, so on a fast link (loopback, or
    /// while other transfers keep that queue busy) libcurl may go on reading the body, and
    /// discarding it, for a while before the cancel lands.
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let overLimit: Bool = lock.withLock {
            guard var exchange = exchanges[dataTask.taskIdentifier], exchange.failure == nil else { return false }
            if exchange.body.count + data.count > exchange.maxBytes {
                exchange.failure = .transport(.tooLarge(limit: exchange.maxBytes))
                exchange.body = []
                exchanges[dataTask.taskIdentifier] = exchange
                return true
            }
            if let charge = exchange.charge, !charge.add(data.count) {
                exchange.failure = .transport(.overBudget(limit: charge.limit))
                exchange.body = []
                charge.release()
                exchanges[dataTask.taskIdentifier] = exchange
                return true
            }
            // Move the exchange out and back so that appending does not copy the body.
            exchanges[dataTask.taskIdentifier] = nil
            // Region by region: on Apple platforms the data is often several discontiguous
            // buffers, which appending the `Data` itself would copy byte by byte.
            for region in data.regions {
                region.withUnsafeBytes { exchange.body.append(contentsOf: $0) }
            }
            exchanges[dataTask.taskIdentifier] = exchange
            return false
        }
        if overLimit { dataTask.cancel() }
    }

    /// Notes the protocol the response came over (`h2`, `http/1.1`, `h3`), so that the downloader
    /// multiplexes on HTTP/2 hosts. Apple's URLSession calls this before the task completes.
    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        let version = metrics.transactionMetrics.last?.networkProtocolName.flatMap({ HTTPVersion(protocolName: $0) })
        lock.withLock { exchanges[task.taskIdentifier]?.httpVersion = version }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let exchange = lock.withLock({ exchanges.removeValue(forKey: task.taskIdentifier) }),
            let continuation = exchange.continuation
        else { return }
        let host = task.originalRequest?.url?.host ?? "the server"
        continuation.resume(with: Self.result(of: exchange, response: task.response, error: error, host: host))
    }

    // MARK: outcome

    private static func result(
        of exchange: Exchange, response: URLResponse?, error: (any Error)?, host: String
    ) -> Result<TransportResponse, any Error> {
        if let failure = exchange.failure { return .failure(Self.error(for: failure)) }
        let http = response as? HTTPURLResponse
        // Only an identity-encoded body can be checked against Content-Length.
        let declared: Int64? = http.flatMap { http in
            guard Self.mayHaveBody(http.statusCode), http.expectedContentLength > 0,
                (http.value(forHTTPHeaderField: "Content-Encoding") ?? "identity").lowercased() == "identity"
            else { return nil }
            return http.expectedContentLength
        }
        let received = Int64(exchange.body.count)
        if let error {
            let mapped = Self.transportError(for: error, maxBytes: exchange.maxBytes, host: host)
            if case .connection(let reason) = mapped, let declared, received < declared {
                return .failure(TransportError.connection("truncated: \(received) of \(declared) bytes (\(reason))"))
            }
            return .failure(mapped)
        }
        guard let http else { return .failure(TransportError.connection("no HTTP response")) }
        if let declared, received < declared {
            return .failure(TransportError.connection("truncated: \(received) of \(declared) bytes"))
        }
        let headers: [(name: String, value: String)] = http.allHeaderFields.compactMap { field in
            guard let name = field.key as? String else { return nil }
            return (name: name, value: field.value as? String ?? "\(field.value)")
        }
        var response = TransportResponse(status: http.statusCode, headers: headers, body: exchange.body, httpVersion: exchange.httpVersion)
        response.charge = exchange.charge
        return .success(response)
    }

    private static func error(for failure: Failure) -> any Error {
        switch failure {
        case .transport(let error): error
        case .cancelled: CancellationError()
        }
    }

    /// Maps an error URLSession reported (not one the transport caused itself).
    static func transportError(for error: any Error, maxBytes: Int, host: String) -> TransportError {
        guard let urlError = error as? URLError else {
            return .connection(String(describing: error))
        }
        switch urlError.code {
        case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot:
            return .certificate(host: host, problem: CertificateProblem(.untrustedIssuer, "not issued by a trusted CA"))
        case .serverCertificateHasBadDate:
            return .certificate(host: host, problem: CertificateProblem(.outsideValidity, "expired, or not valid yet"))
        case .serverCertificateNotYetValid:
            return .certificate(host: host, problem: CertificateProblem(.outsideValidity, "not valid yet"))
        case .timedOut:
            return .timedOut(phase: nil)
        case .badURL, .unsupportedURL:
            return .invalidRequest("URL not supported (URLError \(urlError.code.rawValue))")
        case .appTransportSecurityRequiresSecureConnection:
            // Refused before any connection, and refused again every time: not worth a retry.
            return .invalidRequest("blocked by App Transport Security: an http:// image needs an NSAppTransportSecurity exception in the app's Info.plist")
        case .dataLengthExceedsMaximum:
            return .tooLarge(limit: maxBytes)
        default:
            return .connection(reason(for: urlError))
        }
    }

    /// A fixed wording for the common codes; otherwise what the error says (libcurl's message,
    /// e.g. "transfer closed with 100 bytes remaining to read", arrives under an unknown code).
    private static func reason(for error: URLError) -> String {
        switch error.code {
        case .cannotFindHost, .dnsLookupFailed: "cannot find host"
        case .cannotConnectToHost: "cannot connect to host"
        case .networkConnectionLost: "network connection lost"
        case .notConnectedToInternet: "not connected to the internet"
        case .badServerResponse: "bad server response"
        case .cancelled: "cancelled"
        case .secureConnectionFailed: "TLS connection failed"
        case .zeroByteResource: "empty response"
        default:
            (error.userInfo[NSLocalizedDescriptionKey] as? String).flatMap { $0.isEmpty ? nil : $0 }
                ?? "URLError \(error.code.rawValue)"
        }
    }

    /// Whether a response with this status can carry a body (RFC 9110 §6.4.1).
    static func mayHaveBody(_ status: Int) -> Bool {
        !(100..<200).contains(status) && status != 204 && status != 304
    }
}
