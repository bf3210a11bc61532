#if canImport(CCurl)
import ImgCache

/// Holds back the requests to an https origin while the first one's connection is being set up,
/// so that they go once it is known whether that connection speaks HTTP/2: then they share it,
/// instead of opening one each.
///
/// libcurl's own way, `CURLOPT_PIPEWAIT`, parks the waiting transfers inside libcurl, where 7.88
/// runs none of their time-outs and moves them on one wake-up at a time (and on plain http held
/// each request back until the host's first response had ended). Here the held transfers are the
/// multi thread's own: released together, failed at their deadline, cancelled at once.
///
/// Only the multi thread uses it.
struct FirstConnectionGate {
    private struct Origin {
        /// The transfer whose connection the others wait for.
        var first: CurlTransfer
        var held: [CurlTransfer]
    }

    /// Origins whose first transfer has not connected yet.
    private var connecting: [String: Origin] = [:]
    /// How many of each origin's transfers are with libcurl.
    private var admitted: [String: Int] = [:]

    /// Whether `transfer` may go to libcurl now. If not, it is held until ``released()`` gives
    /// it back. Plain-http transfers always may: without TLS there is no HTTP/2 to wait for.
    mutating func admit(_ transfer: CurlTransfer) -> Bool {
        guard let key = transfer.originKey else { return true }
        if connecting[key] != nil {
            connecting[key]!.held.append(transfer)
            return false
        }
        // The first to an origin nothing is sent to: the others wait for its connection.
        if admitted[key, default: 0] == 0 { connecting[key] = Origin(first: transfer, held: []) }
        admitted[key, default: 0] += 1
        return true
    }

    /// Records that an admitted transfer ended.
    mutating func ended(_ transfer: CurlTransfer) {
        guard let key = transfer.originKey, let count = admitted[key] else { return }
        admitted[key] = count > 1 ? count - 1 : nil
    }

    /// The held transfers whose origin's first transfer connected, or ended without: to be
    /// admitted again, in the order they came.
    mutating func released() -> [CurlTransfer] {
        guard !connecting.isEmpty else { return [] }
        var released: [CurlTransfer] = []
        for (key, origin) in connecting where origin.first.isConnected || origin.first.isFinished {
            connecting[key] = nil
            released += origin.held
        }
        return released
    }

    /// Takes a held transfer out (cancelled, or past its deadline); false when it is not held.
    mutating func remove(_ transfer: CurlTransfer) -> Bool {
        guard let key = transfer.originKey,
              let position = connecting[key]?.held.firstIndex(where: { $0 === transfer }) else { return false }
        connecting[key]!.held.remove(at: position)
        return true
    }

    /// Every held transfer.
    var held: [CurlTransfer] {
        connecting.values.flatMap(\.held)
    }
}
#endif
