import Foundation
import Shared
import SQLiteImageIndex

/// The GRDB prototype under the shared workloads. Names: 64 hex digits from the URL plus `.png`,
/// as LocalImageNaming makes them (XXH64 × 4 here instead of SHA-256, to keep swift-crypto out).
struct GRDBEngine: WeighEngine {
    let store: SQLiteImageStore
    init(folder: String, maxTotalBytes: Int?) throws {
        store = try SQLiteImageStore(folder: folder, maxTotalBytes: maxTotalBytes)
    }
    static func localName(_ url: String) -> String {
        (0 ..< 4).map { lane -> String in
            let h = XXH64.hash(Array("\(lane)\(url)".utf8))
            let hex = String(h, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined() + ".png"
    }
    func store(_ indices: [Int], cold: Bool, now: Double) throws -> Int {
        try store.store(indices.map { i in
            let url = Workload.url(i, cold: cold)
            return SQLiteImageStore.Item(bytes: Workload.bytes(i, cold: cold), url: url, localName: Self.localName(url),
                                         contentType: Workload.contentType, etag: Workload.etag(i, cold: cold),
                                         lastModified: Workload.lastModified)
        }, now: now)
    }
    func stats() throws -> (entries: Int, bytes: Int) {
        try store.stats(checkFiles: ProcessInfo.processInfo.environment["WEIGH_STATS_SQL_ONLY"] != "1")
    }
    func warm(_ indices: [Int], now: Double) throws -> (Int, Int, Int) {
        let images = indices.map { i in let url = Workload.url(i, cold: false); return (url: url, localName: Self.localName(url)) }
        var counts = (0, 0, 0)
        for result in try store.lookUpForUse(images, now: now) {
            switch result {
            case .fresh: counts.0 += 1
            case .stale: counts.1 += 1
            case .missing: counts.2 += 1
            }
        }
        return counts
    }
    func verify() throws -> String {
        let v = try store.verify()
        return "intact=\(v.intact) records_not_intact=\(v.badRecords) orphan_files=\(v.orphanFiles) integrity=\(v.integrity)"
    }
}

try weighMain(GRDBEngine.self)
