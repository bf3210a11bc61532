#if CommandLine
#if os(Linux) && canImport(CCurl)
import CCurl
import ImgCache
import ImgCacheHTTPClient
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One GET on libcurl: the request, what has arrived of the response, and what is called with
/// its outcome.
///
/// After ``CurlMultiThread/submit(_:)`` it belongs to the multi thread: libcurl calls its
/// callbacks there, and only there is it read or changed, until `finish` resumes the caller.
final class CurlTransfer: @unchecked Sendable {
    let request: TransportRequest
    /// The proxy URL (`http://host:port`), or nil to connect directly.
    let proxy: String?
    /// Called once, on the multi thread, with the outcome; set by the caller before the transfer
    /// is submitted.
    var completion: ((Result<TransportResponse, any Error>) -> Void)?

    // The response as it arrives. A new status line (after a `100 Continue`, say) starts afresh.
    private(set) var status = 0
    private(set) var headers: [(name: String, value: String)] = []
    private(set) var body: [UInt8] = []
    private(set) var declaredLength: Int?
    private(set) var headReceived = false
    /// Set once a connection is up and the request is about to be sent on it.
    var isConnected = false
    /// Whether that connection was there before this transfer (libcurl's `CURLINFO_NUM_CONNECTS` is 0).
    var reusedConnection = false
    /// That connection's local port: what tells it from the origin's other connections.
    var localPort: Int32 = 0
    /// Sent beyond the streams known to fit on its origin's connection (``OriginGate``): libcurl
    /// may not open a connection for it.
    var isProbe = false
    /// Set when libcurl asked for a socket for this probe and was refused it.
    var wasRefusedAsProbe = false
    /// The easy handle it runs on, while it is with libcurl.
    var handle: UnsafeMutableRawPointer?
    /// The bytes of head received, counted against ``maxHeadBytes``.
    private var headBytes = 0
    /// Set when the head passed ``maxHeadBytes``: the header callback then stops the transfer.
    private(set) var headTooLarge = false
    /// Set when a line of the head held a control character (a bare CR, ESC, …): the header
    /// callback then stops the transfer, as SwiftNIO's parser refuses such a head. Kept, such a
    /// value would reach the cache's index, a terminal, and the next request's validators.
    private(set) var headHasControlCharacter = false
    /// Set when the body passed `maxBytes`: the write callback then stops the transfer.
    private(set) var exceededLimit = false
    /// The body's bytes counted against the request's budget, when it has one.
    let charge: BudgetCharge?
    /// Set when the budget had no room for the next part of the body: the write callback then
    /// stops the transfer.
    private(set) var exceededBudget = false
    /// The address the open-socket callback refused, and why ("a loopback address").
    private(set) var deniedAddress: (address: IPAddress, kind: String)?
    /// libcurl's message for a failure (`CURLOPT_ERRORBUFFER`, which must outlive the transfer).
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    /// The request headers as libcurl takes them, freed with the transfer.
    var headerList: UnsafeMutablePointer<curl_slist>?
    /// The `CURLOPT_RESOLVE` entry, when the host's address is given (tests), freed with the transfer.
    var resolveList: UnsafeMutablePointer<curl_slist>?
    /// The address checked for the URL's host, which a proxy is told to connect to instead of the
    /// name (``CurlTransport``), when private networks are denied.
    let pinnedAddress: IPAddress?
    /// The `CURLOPT_CONNECT_TO` entry for ``pinnedAddress``, freed with the transfer.
    var connectToList: UnsafeMutablePointer<curl_slist>?
    /// Asked for before it reached the multi thread, or while on it: fail with `CancellationError`.
    var isCancelled = false

    /// What tells an https origin's connections apart (host, port and proxy), for
    /// ``OriginGate``; nil for plain http.
    let originKey: String?

    /// Whether the URL is https, and so needs the trusted CAs.
    var isHTTPS: Bool { originKey != nil }

    init(request: TransportRequest, proxy: String?, pinnedAddress: IPAddress? = nil) {
        self.request = request
        self.proxy = proxy
        self.pinnedAddress = pinnedAddress
        charge = request.budget?.charge()
        originKey = request.url.hasPrefixIgnoringASCIICase("https://")
            ? URLAuthority(request.url).map { "\($0.host):\($0.port) \(proxy ?? "")" } : nil
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        errorBuffer.deallocate()
        imgcache_curl_slist_free_all(headerList)
        imgcache_curl_slist_free_all(resolveList)
        imgcache_curl_slist_free_all(connectToList)
    }

    /// Hands the caller the outcome, once; later calls do nothing.
    func finish(_ result: Result<TransportResponse, any Error>) {
        let completion = self.completion
        self.completion = nil
        completion?(result)
    }

    var isFinished: Bool { completion == nil }

    /// Readies a probe that was refused a connection (and so never connected) to be sent again.
    func prepareToResend() {
        wasRefusedAsProbe = false
        errorBuffer[0] = 0
        imgcache_curl_slist_free_all(headerList)
        imgcache_curl_slist_free_all(resolveList)
        imgcache_curl_slist_free_all(connectToList)
        headerList = nil
        resolveList = nil
        connectToList = nil
    }

    /// libcurl's message for the failure, if it wrote one.
    var errorMessage: String {
        String(cString: errorBuffer)
    }

    // MARK: Callbacks (on the multi thread)

    /// The most head bytes accepted (status line and fields, informational heads included): the
    /// limit SwiftNIO's HTTP/1 decoder sets, which AsyncHTTPClient meets first; libcurl's own is 300 KB.
    static let maxHeadBytes = 80 * 1024

    /// `CURLOPT_HEADERFUNCTION`: one line of the head, with its line ending. False stops the
    /// transfer (a head over ``maxHeadBytes``).
    func receiveHeaderLine(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        headBytes += line.count
        guard headBytes <= Self.maxHeadBytes else {
            headTooLarge = true
            return false
        }
        // What comes after the final head is a chunked body's trailer: never the response's status
        // or fields (a trailer line `HTTP/1.1: 200` must not turn a 404 into a 200).
        if headReceived { return true }
        var end = line.count
        if end > 0, line[end - 1] == UInt8(ascii: "\n") { end -= 1 }
        if end > 0, line[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        // Control characters other than a tab, a CR inside the line above all, are refused.
        for index in 0..<end where line[index] < 0x20 && line[index] != 0x09 || line[index] == 0x7f {
            headHasControlCharacter = true
            return false
        }
        if end == 0 {
            // The blank line that ends a head; an informational (1xx) head is followed by another.
            headReceived = !(100..<200).contains(status)
            return true
        }
        let text = line[..<end]
        if end >= 5, line[0] == UInt8(ascii: "H"), line[1] == UInt8(ascii: "T"), line[2] == UInt8(ascii: "T"),
           line[3] == UInt8(ascii: "P"), line[4] == UInt8(ascii: "/") {
            status = Self.statusCode(text) ?? 0
            headers.removeAll(keepingCapacity: true)
            // Room for a usual head's fields at once, rather than growing four times.
            headers.reserveCapacity(16)
            declaredLength = nil
            headReceived = false
            return true
        }
        guard let colon = text.firstIndex(of: UInt8(ascii: ":")) else { return true }
        let name = String(decoding: text[..<colon], as: UTF8.self)
        var valueStart = colon + 1
        while valueStart < end, text[valueStart] == UInt8(ascii: " ") || text[valueStart] == UInt8(ascii: "\t") { valueStart += 1 }
        let value = String(decoding: text[valueStart..<end], as: UTF8.self)
        if name.equalsIgnoringASCIICase("Content-Length"), let length = Int(value), length >= 0 {
            declaredLength = length
            // Reserved once, so that the body is not copied as it grows.
            if length <= request.maxBytes { body.reserveCapacity(length) }
        }
        headers.append((name, value))
        return true
    }

    /// `CURLOPT_WRITEFUNCTION`: some of the body. False stops the transfer (too large).
    func receiveBody(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = body.count + bytes.count
        guard count <= request.maxBytes else {
            exceededLimit = true
            return false
        }
        // A body of no declared length grows by doubling, but never past the limit: left to
        // Array, a body just over half the limit would take twice the limit (and 3× while copied).
        if let charge, !charge.add(bytes.count) {
            exceededBudget = true
            return false
        }
        if count > body.capacity { body.reserveCapacity(min(request.maxBytes, max(count, body.capacity * 2))) }
        body.append(contentsOf: bytes)
        return true
    }

    /// Whether a connection may be opened to `address`; remembers a refusal.
    func mayConnect(to address: IPAddress) -> Bool {
        guard let kind = request.privateNetworks.refusal(of: address) else { return true }
        if deniedAddress == nil { deniedAddress = (address, kind) }
        return false
    }

    /// The status code of a status line (`HTTP/1.1 200 OK`, `HTTP/2 200`).
    private static func statusCode(_ line: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        guard let space = line.firstIndex(of: UInt8(ascii: " ")) else { return nil }
        var code = 0
        var digits = 0
        for byte in line[(space + 1)...] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { break }
            code = code * 10 + Int(byte - UInt8(ascii: "0"))
            digits += 1
        }
        return digits == 3 ? code : nil
    }
}
#endif
#endif
