#if CommandLine
#if os(Linux) && canImport(CCurl)
import ImgCache
import ImgCacheHTTPClient

/// Decides when the transfers to an https origin go to libcurl: once the origin's first connection
/// is up, and no more at once than that connection carries.
///
/// **The first connection.** The requests to an origin are held while its first one's connection
/// is being set up, so that they go once it is known whether that connection speaks HTTP/2: then
/// they share it, instead of opening one each. libcurl's own way, `CURLOPT_PIPEWAIT`, parks the
/// waiting transfers inside libcurl, where 7.88 runs none of their time-outs and moves them on one
/// wake-up at a time (and on plain http held each request back until the host's first response
/// had ended). Here the held transfers are the multi thread's own: released together, failed at
/// their deadline, cancelled at once.
///
/// **The server's stream limit.** libcurl 7.88 keeps to the server's
/// `SETTINGS_MAX_CONCURRENT_STREAMS` on a connection, but it neither reports that limit nor waits
/// for a free stream: a transfer beyond it gets a connection of its own, which HTTP/2 asks clients
/// not to open. So past ``unprobedStreams`` at once, the transfers go one at a time, each a probe:
/// one that joins the connection raises the count known to fit; one for which libcurl opens a
/// socket is refused it (``CurlTransfer/isProbe``), held again, and the count then in flight is the
/// origin's limit from then on. Before the connection has answered, libcurl assumes 100 streams
/// whatever the server allows, so the probes start once a response has come on it.
///
/// Only the multi thread uses it.
struct OriginGate {
    /// At most this many transfers to an origin go at once without probing: what libcurl assumes
    /// of an HTTP/2 connection whose server has not said its limit, and the limit most servers set.
    static let unprobedStreams = 100

    private struct Origin {
        /// The transfer whose connection the others wait for, while it connects.
        var first: CurlTransfer?
        /// The local port of that connection, once up: the one the others should share.
        var connection: Int32 = 0
        /// Transfers waiting for the first connection, a probe's outcome or a free stream, in the
        /// order they came.
        var held: [CurlTransfer] = []
        /// How many are with libcurl.
        var admitted = 0
        /// Whether the connection the transfers share has answered since the first one connected
        /// (or was there before it): its server's settings, and so its limit, are in.
        var answered = false
        /// The most transfers seen to share one connection at once (at least ``unprobedStreams``).
        var shared = OriginGate.unprobedStreams
        /// The most at once, once a probe found the connection full.
        var limit: Int?
        /// The transfer sent beyond ``shared`` whose connection is not known yet.
        var probe: CurlTransfer?

        /// How many may be with libcurl before the next one is a probe.
        var unprobedLimit: Int { answered ? shared : OriginGate.unprobedStreams }

        var mayAdmit: Bool {
            guard first == nil, admitted < limit ?? .max else { return false }
            return admitted < unprobedLimit || (answered && probe == nil)
        }

        mutating func take(_ transfer: CurlTransfer) {
            if admitted == 0 {
                first = transfer
                answered = false
            } else if admitted >= unprobedLimit {
                probe = transfer
                transfer.isProbe = true
            }
            admitted += 1
        }

        var isWaiting: Bool { first != nil || probe != nil || !held.isEmpty }
    }

    private var origins: [String: Origin] = [:]
    /// The origins with a first connection or a probe to watch, or transfers held.
    private var waiting: Set<String> = []

    /// Whether `transfer` may go to libcurl now. If not, it is held until ``released()`` gives
    /// it back. Plain-http transfers always may: without TLS there is no HTTP/2 to wait for.
    mutating func admit(_ transfer: CurlTransfer) -> Bool {
        guard let key = transfer.originKey else { return true }
        var origin = origins[key] ?? Origin()
        defer {
            origins[key] = origin
            if origin.isWaiting { waiting.insert(key) }
        }
        guard origin.held.isEmpty, origin.mayAdmit else {
            origin.held.append(transfer)
            return false
        }
        origin.take(transfer)
        return true
    }

    /// Records that an admitted transfer ended.
    mutating func ended(_ transfer: CurlTransfer) {
        guard let key = transfer.originKey, var origin = origins[key], origin.admitted > 0 else { return }
        origin.admitted -= 1
        if transfer.headReceived { origin.answered = true }
        if origin.probe === transfer { origin.probe = nil }
        origins[key] = origin
    }

    /// Records that libcurl was refused a new connection for the probe `transfer`, which has been
    /// taken off it: the others fill the connection. The transfer is held again, first in line.
    mutating func probeRefused(_ transfer: CurlTransfer) {
        guard let key = transfer.originKey, var origin = origins[key] else { return }
        transfer.isProbe = false
        origin.admitted -= 1
        if origin.probe === transfer { origin.probe = nil }
        // With nothing else in flight the connection had closed: a new one is no probe's.
        if origin.admitted > 0 { origin.limit = origin.admitted }
        origin.held.insert(transfer, at: 0)
        origins[key] = origin
        waiting.insert(key)
    }

    /// The held transfers that may go now, admitted again in the order they came: those whose
    /// origin's first transfer connected (or ended without), after a probe joined the connection,
    /// or as streams come free.
    mutating func released() -> [CurlTransfer] {
        guard !waiting.isEmpty else { return [] }
        var released: [CurlTransfer] = []
        for key in waiting {
            guard var origin = origins[key] else { continue }
            if let first = origin.first, first.isConnected || first.isFinished {
                origin.first = nil
                origin.connection = first.localPort
                if first.reusedConnection { origin.answered = true }
            }
            if let probe = origin.probe, probe.isConnected {
                probe.isProbe = false
                origin.probe = nil
                // On another connection already open (the server refused streams of a first burst
                // beyond its limit, and libcurl opened more): the shared one is full.
                if probe.localPort == origin.connection {
                    origin.shared = max(origin.shared, origin.admitted)
                } else {
                    origin.limit = origin.admitted - 1
                }
            }
            var count = 0
            while count < origin.held.count, origin.mayAdmit {
                origin.take(origin.held[count])
                count += 1
            }
            if count > 0 {
                released += origin.held[..<count]
                origin.held.removeFirst(count)
            }
            origins[key] = origin
            if !origin.isWaiting { waiting.remove(key) }
        }
        return released
    }

    /// The most transfers at once to the origin of `transfer`, once a probe found its connection
    /// full; nil before, and for plain http.
    func streamLimit(of transfer: CurlTransfer) -> Int? {
        transfer.originKey.flatMap { origins[$0]?.limit }
    }

    /// Takes a held transfer out (cancelled, or past its deadline); false when it is not held.
    mutating func remove(_ transfer: CurlTransfer) -> Bool {
        guard let key = transfer.originKey,
              let position = origins[key]?.held.firstIndex(where: { $0 === transfer }) else { return false }
        origins[key]!.held.remove(at: position)
        return true
    }

    /// Every held transfer.
    var held: [CurlTransfer] {
        waiting.flatMap { origins[$0]?.held ?? [] }
    }
}
#endif
#endif
