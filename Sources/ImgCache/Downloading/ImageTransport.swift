/// One HTTP GET, as the downloader asks a transport for it.
public struct TransportRequest: Sendable {
    /// The absolute http(s) URL to GET.
    public var url: String
    /// Extra request headers (`User-Agent`, `If-None-Match`, `If-Modified-Since`).
    public var headers: [(name: String, value: String)]
    /// The most body bytes to accept; a transport stops receiving and throws
    /// `TransportError.tooLarge` past it (and before, when `Content-Length` says so).
    public var maxBytes: Int
    /// When the whole exchange (connect, headers and body) must be over.
    public var deadline: ContinuousClock.Instant
    /// Which addresses may be connected to; a refused one fails with ``TransportError/deniedAddress(host:address:kind:)``.
    public var privateNetworks: PrivateNetworkAccess
    /// What the body's bytes are counted against as they arrive (``DownloadPolicy/maxBytesInFlight``),
    /// when the downloader keeps one: a transport that counts them ends a request the budget has
    /// no room for with ``TransportError/overBudget(limit:)``, and hands the count on in
    /// ``TransportResponse/charge``.
    package var budget: ByteBudget?

    /// Throws `TransportError.invalidRequest` when a header's name is not a field name or its
    /// value holds a control character: sent as it is, a CR or LF would start fields of its own.
    /// Every transport calls it before a request goes out.
    package func checkHeaders() throws {
        for header in headers where !HTTPFieldValue.isToken(header.name) || !HTTPFieldValue.isSendable(header.value) {
            let name = HTTPFieldValue.isToken(header.name) ? header.name : "request"
            throw TransportError.invalidRequest("the \(name) header holds a character a header cannot hold")
        }
    }

    /// Creates a request.
    public init(url: String, headers: [(name: String, value: String)] = [], maxBytes: Int, deadline: ContinuousClock.Instant,
                privateNetworks: PrivateNetworkAccess = .allowed) {
        self.url = url
        self.headers = headers
        self.maxBytes = maxBytes
        self.deadline = deadline
        self.privateNetworks = privateNetworks
    }
}

/// What came back: status, headers and the whole body. Redirects are not followed by the
/// transport: a 3xx comes back as it is, so that the downloader applies one redirect policy
/// (count, schemes) whichever transport is used.
public struct TransportResponse: Sendable {
    /// The HTTP status code.
    public var status: Int
    /// Response headers, names as received.
    public var headers: [(name: String, value: String)]
    /// The body (empty for 304 and redirects).
    public var body: [UInt8]
    /// The HTTP version the response came over; nil when the transport cannot tell (the downloader
    /// then treats the host as an HTTP/1.1 one).
    public var httpVersion: HTTPVersion?
    /// The most requests the origin's server takes at once on the connection, when the transport
    /// has learnt it (its HTTP/2 `SETTINGS_MAX_CONCURRENT_STREAMS`): the downloader then sends no
    /// more than that at once, and the rest wait in its queue, where no time-out runs yet.
    public var streamLimit: Int?
    /// The body's bytes as counted against the request's ``TransportRequest/budget``: given back
    /// when the body is no longer held (or when the last copy of the response is dropped).
    package var charge: BudgetCharge?

    /// Creates a response.
    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8], httpVersion: HTTPVersion? = nil,
                streamLimit: Int? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.httpVersion = httpVersion
        self.streamLimit = streamLimit
    }

    /// The first value of a header, compared case-insensitively.
    package func header(_ name: String) -> String? {
        headers.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }
}

/// Why a transport could not deliver a response.
public enum TransportError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The deadline passed before the response was complete; `phase` says what stalled, when
    /// the transport knows.
    case timedOut(phase: TimeoutPhase?)
    /// The body is larger than `TransportRequest.maxBytes`.
    case tooLarge(limit: Int)
    /// The connection failed, was reset, or closed before the whole body arrived.
    case connection(String)
    /// The URL or request could not be sent at all.
    case invalidRequest(String)
    /// The server answered with something that is not valid HTTP, or breaks a limit the client
    /// sets (say, a head over the header size limit). Not retried: another attempt would most
    /// likely be answered the same way.
    case invalidResponse(String)
    /// The server's TLS certificate was refused: `problem` says why (not trusted, expired, issued
    /// for another host). Not retried: another attempt would meet the same certificate.
    case certificate(host: String, problem: CertificateProblem)
    /// The host is, or resolves to, an address that ``PrivateNetworkAccess`` refuses: `kind` says
    /// which ("a loopback address"). Not retried, and nothing was sent to it.
    case deniedAddress(host: String, address: String, kind: String)
    /// The body was stopped because the images in flight already held the bytes
    /// ``DownloadPolicy/maxBytesInFlight`` allows: the downloader asks again once there is room
    /// (not counted as a retry), so this is only seen when the deadline came first.
    case overBudget(limit: Int)

    /// A short sentence for a person.
    public var description: String {
        switch self {
        case .timedOut(nil): "timed out"
        case .timedOut(let phase?): "timed out \(phase)"
        case .tooLarge(let limit): "larger than the \(Self.size(limit)) limit"
        case .connection(let reason): "connection failed: \(reason)"
        case .invalidRequest(let reason): "invalid request: \(reason)"
        case .invalidResponse(let reason): "invalid response: \(reason)"
        case .certificate(let host, let problem): "TLS certificate of \(host) refused: \(problem)"
        case .overBudget(let limit): "held back: the images in flight already held the \(Self.size(limit)) allowed at once"
        case .deniedAddress(let host, let address, let kind):
            // A literal host is the address itself, however the URL spelled it (`[::ffff:a00:1]`).
            IPAddress(host) != nil
                ? "refused: \(address) is \(kind), and private networks are denied"
                : "refused: \(host) is at \(address), \(kind), and private networks are denied"
        }
    }

    /// Whether trying again may help (connection failures and time-outs).
    package var isTransient: Bool {
        switch self {
        case .timedOut, .connection: true
        case .tooLarge, .invalidRequest, .invalidResponse, .certificate, .deniedAddress, .overBudget: false
        }
    }

    /// "20 MB" for whole mebibytes (as `--max-bytes` defaults to), "512 KB" for whole kibibytes,
    /// "10000-byte" otherwise.
    private static func size(_ bytes: Int) -> String {
        let kibibyte = 1024, mebibyte = 1024 * 1024
        if bytes >= mebibyte, bytes % mebibyte == 0 { return "\(bytes / mebibyte) MB" }
        if bytes >= kibibyte, bytes % kibibyte == 0 { return "\(bytes / kibibyte) KB" }
        return "\(bytes)-byte"
    }
}

/// Performs HTTP GETs for the downloader. The package has three: `URLSessionTransport` (no
/// dependency beyond Foundation; what an app uses), the AsyncHTTPClient one (`ImgCacheHTTPClient`)
/// and, on Linux, the libcurl one (`ImgCacheCurl`). The command line uses libcurl where it is
/// installed, else AsyncHTTPClient; FoundationNetworking's `URLSession` is much slower on Linux.
/// Any other type that keeps this contract works too.
public protocol ImageTransport: Sendable {
    /// Sends one GET and returns the response without following redirects.
    /// - Throws: `TransportError`; `CancellationError` when the task is cancelled. Any other error
    ///   fails the image with a ``DownloadFailure`` that names its type and says the
    ///   transport does not declare it.
    func send(_ request: TransportRequest) async throws -> TransportResponse

    /// Releases connections and threads; called once, when the transport is no longer needed.
    func shutdown() async

    /// Whether `send` always ends by `TransportRequest.deadline` (throwing `TransportError.timedOut`),
    /// however slowly the server sends. When false (the default), the downloader bounds each
    /// request itself, at the cost of a task per request.
    var keepsDeadlines: Bool { get }

    /// Whether `send` itself refuses, on the address each connection is actually made to, what
    /// `TransportRequest.privateNetworks` denies. When false (the default), the host's addresses are
    /// looked up and checked before each request instead, which a DNS name that answers
    /// differently the second time can get past.
    var checksConnectedAddresses: Bool { get }

    /// Optional: sends `request` with no task waiting for it, and calls `completion` once, from
    /// any thread, with the response or what ``send(_:)`` would have thrown. Returns what cancels
    /// the request (after which `completion` still comes, with `CancellationError` or a
    /// response); nil, with nothing sent and `completion` never called, when this request must
    /// go through ``send(_:)``. The default sends nothing.
    ///
    /// The downloader uses it only where the transport keeps the request's promises itself
    /// (``keepsDeadlines``, and ``checksConnectedAddresses`` when private networks are denied).
    /// Most images need nothing after their response but the cache write: sent this way, they
    /// cost no task, continuation or cancellation handler.
    func send(_ request: TransportRequest,
              completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void) -> (@Sendable () -> Void)?

    /// Optional: starts `work` in a new task that runs on the thread that makes the requests with
    /// `access`, so that a response resumes the task waiting for it with no wake-up of another
    /// thread, and the task's next request is handed in there too. The default starts it on the
    /// cooperative pool.
    func startTask(for access: PrivateNetworkAccess, _ work: sending @escaping () async -> Void) -> Task<Void, Never>

    /// Optional: runs `operation` in the current task, preferring the thread that makes the
    /// requests with `access` (see ``startTask(for:_:)``). The default runs it where it is.
    func preferringThread<T: Sendable>(for access: PrivateNetworkAccess, _ operation: () async -> T) async -> T
}

extension ImageTransport {
    /// Not promised unless a transport says so.
    public var keepsDeadlines: Bool { false }

    /// Not promised unless a transport says so.
    public var checksConnectedAddresses: Bool { false }

    /// Sends nothing: every request goes through ``send(_:)``.
    public func send(_ request: TransportRequest,
                     completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void) -> (@Sendable () -> Void)? {
        nil
    }

    /// On the cooperative pool.
    public func startTask(for access: PrivateNetworkAccess, _ work: sending @escaping () async -> Void) -> Task<Void, Never> {
        Task(operation: work)
    }

    /// Where it is.
    public func preferringThread<T: Sendable>(for access: PrivateNetworkAccess, _ operation: () async -> T) async -> T {
        await operation()
    }

    /// Sends `request`, first looking up and checking its host's addresses when the transport
    /// leaves that to its caller (``leavesAddressCheck(of:)``).
    func sendCheckingAddresses(_ request: TransportRequest) async throws -> TransportResponse {
        if leavesAddressCheck(of: request) {
            try await HostAddressCheck.check(request.url, access: request.privateNetworks)
        }
        return try await send(request)
    }

    /// Whether `request`'s host must be looked up and checked before it is sent: private networks
    /// are denied and the transport does not check the addresses it connects to.
    func leavesAddressCheck(of request: TransportRequest) -> Bool {
        request.privateNetworks.isRestricted && !checksConnectedAddresses
    }
}
