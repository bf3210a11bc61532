#if CommandLine
#if os(Linux) && canImport(CCurl)
import CCurl
import Foundation
import ImgCache
import ImgCacheHTTPClient
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The transfers on one libcurl multi handle: what is handed to libcurl, what is held back for a
/// connection (``OriginGate``), and how each one ends. Used only on its ``CurlMultiThread``'s
/// thread, which decides when to look at it; nothing here waits but ``wait()``.
final class CurlTransferTable {
    /// What every transfer is set up with.
    struct Options: Sendable {
        /// Which CAs to trust.
        var trust: CurlTrustFiles.OnFirstUse
        var connectTimeout: Duration
        /// The longest silence while receiving: below 1 byte/s for this long (in whole seconds,
        /// rounded up) ends the transfer.
        var readTimeout: Duration
        /// Host names answered from this table instead of DNS: how tests make a public-looking
        /// name lead to 127.0.0.1 (`CURLOPT_RESOLVE`, for every port).
        var resolvedNames: [String: IPAddress] = [:]
    }

    /// libcurl's cap on the streams of one HTTP/2 connection (`CURLMOPT_MAX_CONCURRENT_STREAMS`):
    /// above any per-origin limit the downloader sets.
    static let streamsPerConnection = 1 << 20

    private let options: Options
    /// The multi handle: its thread wakes it from ``wait()`` with `curl_multi_wakeup`.
    let multi: UnsafeMutableRawPointer
    private var running: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    private var idleHandles: [UnsafeMutableRawPointer] = []
    private var gate = OriginGate()
    /// When the running transfers' deadlines were last looked at.
    private var lastDeadlineSweep = ContinuousClock.now
    /// How many of libcurl's sockets the last wait found ready.
    private var readySockets: Int32 = 0

    /// libcurl must be loaded (``CurlTransport`` does it).
    init(options: Options) {
        self.options = options
        guard let multi = imgcache_curl_multi_init() else { fatalError("curl_multi_init failed (out of memory)") }
        self.multi = multi
        // Many streams on one HTTP/2 connection (libcurl's default, said here because the
        // downloader's per-host limits depend on it). No cap on connections per host: the
        // downloader already keeps to its per-origin limits, and libcurl's cap counts a proxy as
        // the host of every plain-HTTP origin behind it, holding the transfers over it in a queue
        // where (in 7.88) their time-outs do not run.
        _ = imgcache_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        // No cap of libcurl's own on the streams of a connection: at its default (100) it opened
        // a second connection to an HTTP/2 host for the downloader's 101st request (`--max-streams`
        // above 100). The downloader's per-origin limit decides how many requests are in flight,
        // and nghttp2 keeps to the server's SETTINGS_MAX_CONCURRENT_STREAMS on the wire, holding
        // back the requests beyond it until streams end.
        _ = imgcache_curl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, Self.streamsPerConnection)
        // Idle connections kept for reuse. libcurl's default keeps 4 per transfer then running, and
        // between one image's end and the next one's start few are running: a fetch over HTTP/1.1
        // closed connections to its one host and opened new ones, far more than its limit needs.
        _ = imgcache_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, 128)
    }

    /// Takes a transfer handed in: to libcurl, or held back by the gate, or failed at once when it
    /// was cancelled before it started.
    func add(_ transfer: CurlTransfer) {
        guard !transfer.isCancelled else {
            transfer.finish(.failure(CancellationError()))
            return
        }
        guard gate.admit(transfer) else { return }
        launch(transfer)
    }

    /// Stops a transfer and fails it with `CancellationError`; one not yet started is failed when
    /// it starts.
    func cancel(_ transfer: CurlTransfer) {
        transfer.isCancelled = true
        if let easy = running.first(where: { $0.value === transfer })?.key {
            end(easy, with: .failure(CancellationError()))
        } else if gate.remove(transfer) {
            transfer.finish(.failure(CancellationError()))
        }
    }

    /// One look at the transfers: libcurl runs them if it has something to do, those that ended
    /// are finished, those past their deadlines failed, and those the gate lets go handed to
    /// libcurl. Returns whether any was (libcurl has work for the next look at once).
    func advance() -> Bool {
        // libcurl 7.88's perform runs every transfer (up to 100 HTTP/2 streams), so it is called
        // only when there is something for it to do: a socket ready, or a time-out due, which
        // is also how a new transfer and data libcurl holds already read (TLS) ask for a run.
        // Not for the turns on which only tasks ran.
        if readySockets > 0 || libcurlTimeoutIsDue {
            var stillRunning: Int32 = 0
            _ = imgcache_curl_multi_perform(multi, &stillRunning)
        }
        readySockets = 0
        var left: Int32 = 0
        while let message = imgcache_curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            complete(easy, code: imgcache_curl_msg_result(message))
        }
        endTransfersPastTheirDeadlines()
        let released = gate.released()
        for transfer in released { launch(transfer) }
        return !released.isEmpty
    }

    /// Waits in `curl_multi_poll` until a socket is ready, `curl_multi_wakeup` is called, or a
    /// while has passed (short while transfers run, for their deadlines).
    func wait() {
        _ = imgcache_curl_multi_poll(multi, running.isEmpty ? 1000 : 100, &readySockets)
    }

    /// Fails every transfer, running or held, with `reason`, and frees the idle handles.
    func failAll(_ reason: String) {
        for easy in Array(running.keys) {
            end(easy, with: .failure(TransportError.connection(reason)))
        }
        for transfer in gate.held { transfer.finish(.failure(TransportError.connection(reason))) }
        for easy in idleHandles { imgcache_curl_easy_cleanup(easy) }
        idleHandles.removeAll()
    }

    /// Frees the multi handle (and so closes its connections): the table is not used after.
    func close() {
        imgcache_curl_multi_cleanup(multi)
    }

    /// Whether libcurl wants `curl_multi_perform` now (`curl_multi_timeout` says 0).
    private var libcurlTimeoutIsDue: Bool {
        var milliseconds = -1
        _ = imgcache_curl_multi_timeout(multi, &milliseconds)
        return milliseconds == 0
    }

    /// Fails, as timed out, the transfers whose deadline passed without libcurl ending them: those
    /// it holds back waiting for a connection (libcurl 7.88 does not time those out), or over
    /// `CURLOPT_TIMEOUT_MS` for any other reason. Looked at every 100 ms.
    private func endTransfersPastTheirDeadlines() {
        let now = ContinuousClock.now
        guard now - lastDeadlineSweep >= .milliseconds(100) else { return }
        lastDeadlineSweep = now
        // A little after libcurl's own time-out, which says more (what stalled).
        let overdue = running.filter { now > $0.value.request.deadline + .milliseconds(200) }
        for (easy, _) in overdue { complete(easy, code: CURLE_OPERATION_TIMEDOUT) }
        for transfer in gate.held where now > transfer.request.deadline + .milliseconds(200) && gate.remove(transfer) {
            transfer.finish(.failure(CurlFailure(
                code: CURLE_OPERATION_TIMEDOUT.rawValue, message: "timed out waiting for a connection to the host",
                connected: false, headReceived: false, bodyReceived: 0, declaredLength: nil, exceededLimit: false,
                headTooLarge: false, headHasControlCharacter: false, exceededBudget: false, budgetLimit: 0, deniedAddress: nil,
                verifyResult: 0)))
        }
    }

    /// Hands an admitted transfer to libcurl.
    private func launch(_ transfer: CurlTransfer) {
        let easy = idleHandles.popLast() ?? imgcache_curl_easy_init()
        guard let easy else {
            gate.ended(transfer)
            transfer.finish(.failure(TransportError.connection("libcurl could not make a transfer (out of memory)")))
            return
        }
        do {
            try configure(easy, for: transfer)
        } catch {
            imgcache_curl_easy_reset(easy)
            idleHandles.append(easy)
            gate.ended(transfer)
            transfer.finish(.failure(error as? TransportError ?? TransportError.connection("\(error)")))
            return
        }
        running[easy] = transfer
        transfer.handle = easy
        let code = imgcache_curl_multi_add_handle(multi, easy)
        if code != CURLM_OK {
            end(easy, with: .failure(TransportError.connection(String(cString: imgcache_curl_multi_strerror(code)))))
        }
    }

    /// A finished transfer: its response, or why there is none.
    private func complete(_ easy: UnsafeMutableRawPointer, code: CURLcode) {
        guard let transfer = running[easy] else { return }
        if transfer.wasRefusedAsProbe {
            // Not a failure: the origin's connection is full. The transfer waits for a stream.
            detach(easy)
            transfer.prepareToResend()
            gate.probeRefused(transfer)
            return
        }
        if code == CURLE_OK {
            var version = 0
            _ = imgcache_curl_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
            let httpVersion: HTTPVersion? = switch Int32(version) {
            case Int32(CURL_HTTP_VERSION_1_0), Int32(CURL_HTTP_VERSION_1_1): .http1
            case Int32(CURL_HTTP_VERSION_2_0): .http2
            case Int32(CURL_HTTP_VERSION_3): .http3
            default: nil
            }
            // libcurl's own reading of the status line, which a trailer cannot change.
            var status = 0
            _ = imgcache_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
            var response = TransportResponse(status: status, headers: transfer.headers, body: transfer.body,
                                             httpVersion: httpVersion, streamLimit: gate.streamLimit(of: transfer))
            response.charge = transfer.charge
            end(easy, with: .success(response))
            return
        }
        var verifyResult = 0
        _ = imgcache_curl_easy_getinfo_long(easy, CURLINFO_SSL_VERIFYRESULT, &verifyResult)
        let failure = CurlFailure(
            code: code.rawValue, message: transfer.errorMessage.isEmpty ? String(cString: imgcache_curl_easy_strerror(code)) : transfer.errorMessage,
            connected: transfer.isConnected, headReceived: transfer.headReceived, bodyReceived: transfer.body.count,
            declaredLength: transfer.declaredLength, exceededLimit: transfer.exceededLimit, headTooLarge: transfer.headTooLarge,
            headHasControlCharacter: transfer.headHasControlCharacter, exceededBudget: transfer.exceededBudget,
            budgetLimit: transfer.charge?.limit ?? 0, deniedAddress: transfer.deniedAddress, verifyResult: verifyResult)
        // What it received is dropped: the budget has the room back at once.
        transfer.charge?.release()
        end(easy, with: .failure(failure))
    }

    /// Takes the transfer off the multi handle, keeps the handle for the next one, and resumes the caller.
    private func end(_ easy: UnsafeMutableRawPointer, with result: Result<TransportResponse, any Error>) {
        guard let transfer = detach(easy) else { return }
        gate.ended(transfer)
        transfer.finish(result)
    }

    /// Takes the transfer running on `easy` off the multi handle and keeps the handle for the next one.
    @discardableResult
    private func detach(_ easy: UnsafeMutableRawPointer) -> CurlTransfer? {
        guard let transfer = running.removeValue(forKey: easy) else { return nil }
        transfer.handle = nil
        _ = imgcache_curl_multi_remove_handle(multi, easy)
        imgcache_curl_easy_reset(easy)
        idleHandles.append(easy)
        return transfer
    }

    /// - Throws: ``CertificateTrustError`` when the CA files an https transfer needs cannot be made;
    ///   `TransportError.invalidRequest` when a request header could be read as more than one
    ///   field, or libcurl refuses an option the transfer's safety rests on.
    private func configure(_ easy: UnsafeMutableRawPointer, for transfer: CurlTransfer) throws {
        let request = transfer.request
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        // Before the headers go into libcurl's list, which sends them as they are.
        try request.checkHeaders()
        // The options the guarantees rest on are checked: a libcurl that refuses one must not run
        // the transfer without it (a URL over its length limit, say, is refused by CURLOPT_URL).
        try require(request.url.withCString { imgcache_curl_easy_setopt_pointer(easy, CURLOPT_URL, $0) }, "CURLOPT_URL")
        // http and https only, for the URL and for any redirect; and libcurl never follows one
        // itself (its default, said here so that no change of defaults turns it on): the
        // downloader follows redirects, checking each one.
        try require("http,https".withCString { imgcache_curl_easy_setopt_pointer(easy, CURLOPT_PROTOCOLS_STR, $0) }, "CURLOPT_PROTOCOLS_STR")
        try require("http,https".withCString { imgcache_curl_easy_setopt_pointer(easy, CURLOPT_REDIR_PROTOCOLS_STR, $0) },
                    "CURLOPT_REDIR_PROTOCOLS_STR")
        try require(imgcache_curl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0), "CURLOPT_FOLLOWLOCATION")
        _ = imgcache_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        // A transfer that ends while its host's name is being looked up leaves the lookup to finish
        // on its own instead of waiting for it: otherwise removing the transfer joins libcurl's
        // resolver thread, and one slow DNS answer holds this thread, and every other transfer on
        // it, until getaddrinfo returns (curl/curl#2975, #4852).
        try require(imgcache_curl_easy_setopt_long(easy, CURLOPT_QUICK_EXIT, 1), "CURLOPT_QUICK_EXIT")
        _ = imgcache_curl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, transfer.errorBuffer)
        try require(imgcache_curl_easy_setopt_write(easy, CURLOPT_WRITEFUNCTION, curlReceiveBody), "CURLOPT_WRITEFUNCTION")
        try require(imgcache_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context), "CURLOPT_WRITEDATA")
        try require(imgcache_curl_easy_setopt_write(easy, CURLOPT_HEADERFUNCTION, curlReceiveHeader), "CURLOPT_HEADERFUNCTION")
        try require(imgcache_curl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context), "CURLOPT_HEADERDATA")
        _ = imgcache_curl_easy_setopt_prereq(easy, curlConnected)
        _ = imgcache_curl_easy_setopt_pointer(easy, CURLOPT_PREREQDATA, context)
        // HTTP/2 over TLS when the server offers it (ALPN). No CURLOPT_PIPEWAIT: libcurl 7.88 parks
        // the waiting transfers where their time-outs do not run and moves them on one wake-up at
        // a time, and on plain http it held each request back until the host's first response had
        // ended. OriginGate makes a new https host's burst wait for its first connection instead.
        _ = imgcache_curl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        let remaining = request.deadline - ContinuousClock.now
        try require(imgcache_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, max(1, Self.milliseconds(remaining))), "CURLOPT_TIMEOUT_MS")
        _ = imgcache_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, max(1, Self.milliseconds(options.connectTimeout)))
        _ = imgcache_curl_easy_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, 1)
        _ = imgcache_curl_easy_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, max(1, (Self.milliseconds(options.readTimeout) + 999) / 1000))
        try require(imgcache_curl_easy_setopt_off(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(request.maxBytes)), "CURLOPT_MAXFILESIZE_LARGE")
        // Never the environment's proxy: ProxySettings decided, "" is direct. NOPROXY too, or
        // libcurl would still read `no_proxy` and connect directly where --proxy said not to.
        try require((transfer.proxy ?? "").withCString { imgcache_curl_easy_setopt_pointer(easy, CURLOPT_PROXY, $0) }, "CURLOPT_PROXY")
        try require("".withCString { imgcache_curl_easy_setopt_pointer(easy, CURLOPT_NOPROXY, $0) }, "CURLOPT_NOPROXY")
        // The proxy's answer to CONNECT is not the response: it must not count as the head
        // received (time-out phases) nor toward the head's size limit.
        _ = imgcache_curl_easy_setopt_long(easy, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        // Plain http needs no CAs: they are worked out for the first https transfer.
        if transfer.isHTTPS { try options.trust.files().apply(to: easy) }
        var list: UnsafeMutablePointer<curl_slist>?
        for header in request.headers {
            list = "\(header.name): \(header.value)".withCString { imgcache_curl_slist_append(list, $0) }
        }
        if !options.resolvedNames.isEmpty, let authority = URLAuthority(request.url),
           let address = options.resolvedNames[authority.host.lowercased()] {
            let entry = "\(authority.host):\(authority.port):\(Self.curlAddress(address))"
            let resolve = entry.withCString { imgcache_curl_slist_append(nil, $0) }
            _ = imgcache_curl_easy_setopt_pointer(easy, CURLOPT_RESOLVE, resolve)
            transfer.resolveList = resolve
        }
        // Through a proxy with private networks denied: the proxy is told to connect to the address
        // the transport checked (`CONNECT 93.184.215.14:443`), not to the name, which it would look
        // up again; TLS still verifies the URL's host.
        if let pinned = transfer.pinnedAddress, let authority = URLAuthority(request.url) {
            let entry = "\(authority.host):\(authority.port):\(Self.curlAddress(pinned)):\(authority.port)"
            let connectTo = entry.withCString { imgcache_curl_slist_append(nil, $0) }
            transfer.connectToList = connectTo
            try require(imgcache_curl_easy_setopt_pointer(easy, CURLOPT_CONNECT_TO, connectTo), "CURLOPT_CONNECT_TO")
            try require(imgcache_curl_easy_setopt_long(easy, CURLOPT_HTTPPROXYTUNNEL, 1), "CURLOPT_HTTPPROXYTUNNEL")
        }
        transfer.headerList = list
        try require(imgcache_curl_easy_setopt_pointer(easy, CURLOPT_HTTPHEADER, list), "CURLOPT_HTTPHEADER")
        // Each socket libcurl opens: refused to a probe (OriginGate), and the private-network
        // guard on the address (not through a proxy, whose address it would be: the transport
        // checks the names instead). A connection is only ever reused by requests of the same
        // policy: each policy has a thread and multi handle (and so a connection cache) of its own.
        try require(imgcache_curl_easy_setopt_opensocket(easy, curlOpenSocket), "CURLOPT_OPENSOCKETFUNCTION")
        try require(imgcache_curl_easy_setopt_pointer(easy, CURLOPT_OPENSOCKETDATA, context), "CURLOPT_OPENSOCKETDATA")
    }

    /// Throws unless libcurl took the option.
    private func require(_ code: CURLcode, _ option: String) throws {
        guard code == CURLE_OK else {
            throw TransportError.invalidRequest("libcurl refused \(option): \(String(cString: imgcache_curl_easy_strerror(code)))")
        }
    }

    /// `address` as libcurl's host:port lists take it (`CURLOPT_RESOLVE`, `CURLOPT_CONNECT_TO`):
    /// an IPv6 one in brackets.
    private static func curlAddress(_ address: IPAddress) -> String {
        address.isIPv4 ? address.description : "[\(address)]"
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

/// Why a libcurl transfer failed, as the multi thread saw it; ``CurlTransport`` words it as a
/// `TransportError`.
struct CurlFailure: Error, Sendable {
    var code: UInt32
    var message: String
    /// Whether the connection (and its TLS handshake) was up.
    var connected: Bool
    var headReceived: Bool
    var bodyReceived: Int
    var declaredLength: Int?
    var exceededLimit: Bool
    var headTooLarge: Bool
    var headHasControlCharacter: Bool
    var exceededBudget: Bool
    var budgetLimit: Int
    var deniedAddress: (address: IPAddress, kind: String)?
    /// OpenSSL's verdict on the certificate (`X509_V_OK` is 0).
    var verifyResult: Int
}

// The C callbacks: they capture nothing, and find their transfer in the pointer libcurl passes.

private let curlReceiveBody: curl_write_callback = { data, size, count, context in
    deliver(data, size * count, to: context) { $0.receiveBody($1) }
}

private let curlReceiveHeader: curl_write_callback = { data, size, count, context in
    deliver(data, size * count, to: context) { $0.receiveHeaderLine($1) }
}

/// A write callback's work: the bytes to the transfer `context` names; libcurl is told all were
/// taken, or none (which stops the transfer) when `receive` refuses them.
private func deliver(_ data: UnsafeMutablePointer<CChar>?, _ length: Int, to context: UnsafeMutableRawPointer?,
                     _ receive: (CurlTransfer, UnsafeBufferPointer<UInt8>) -> Bool) -> Int {
    guard let context else { return 0 }
    guard length > 0, let data else { return length }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let accepted = data.withMemoryRebound(to: UInt8.self, capacity: length) {
        receive(transfer, UnsafeBufferPointer(start: $0, count: length))
    }
    return accepted ? length : 0
}

private let curlConnected: curl_prereq_callback = { context, _, _, _, localPort in
    guard let context else { return CURL_PREREQFUNC_OK }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    transfer.isConnected = true
    transfer.localPort = localPort
    if let handle = transfer.handle {
        var connections = 0
        _ = imgcache_curl_easy_getinfo_long(handle, CURLINFO_NUM_CONNECTS, &connections)
        transfer.reusedConnection = connections == 0
    }
    return CURL_PREREQFUNC_OK
}

private let curlOpenSocket: curl_opensocket_callback = { context, purpose, address in
    guard let context, let address else { return CURL_SOCKET_BAD }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    if transfer.isProbe {
        transfer.wasRefusedAsProbe = true
        return CURL_SOCKET_BAD
    }
    guard transfer.proxy == nil else { return openSocket(address.pointee) }
    // `addr` is the last member, with room behind it for the longer IPv6 address.
    let socketAddress = (UnsafeRawPointer(address) + MemoryLayout<curl_sockaddr>.offset(of: \curl_sockaddr.addr)!)
        .assumingMemoryBound(to: sockaddr.self)
    if let peer = IPAddress(socketAddress: socketAddress) {
        guard transfer.mayConnect(to: peer) else { return CURL_SOCKET_BAD }
    } else if transfer.request.privateNetworks.isRestricted {
        return CURL_SOCKET_BAD  // not an IP address (a Unix socket): nothing to check it against
    }
    return openSocket(address.pointee)
}

/// The socket libcurl asked for, closed in any process the command starts (the refresh hook).
private func openSocket(_ address: curl_sockaddr) -> curl_socket_t {
    #if canImport(Glibc)
    socket(address.family, address.socktype | Int32(SOCK_CLOEXEC.rawValue), address.protocol)
    #else
    socket(address.family, address.socktype, address.protocol)
    #endif
}
#endif
#endif
