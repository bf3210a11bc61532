import Foundation
import ImgCache

/// imgcache's hand-built store (ImageCacheStore) under the shared workloads, through the store's
/// public API plus WeighShim (the batch store and lookUpForUse the command line's fetch uses).
struct HandBuiltEngine: WeighEngine {
    let store: ImageCacheStore
    init(folder: String, maxTotalBytes: Int?) throws {
        store = try ImageCacheStore(directory: folder, policy: CachePolicy(maxTotalBytes: maxTotalBytes))
    }
    func store(_ indices: [Int], cold: Bool, now: Double) throws -> Int {
        WeighShim.storeBatch(store, indices.map { i in
            WeighShim.Item(bytes: Workload.bytes(i, cold: cold), url: BrowserURL(Workload.url(i, cold: cold))!,
                           contentType: Workload.contentType, etag: Workload.etag(i, cold: cold), lastModified: Workload.lastModified)
        }, now: Date(timeIntervalSince1970: now))
    }
    func stats() throws -> (entries: Int, bytes: Int) {
        let s = store.stats()
        return (s.entryCount, s.totalBytes)
    }
    func warm(_ indices: [Int], now: Double) throws -> (Int, Int, Int) {
        let r = WeighShim.lookUpForUse(store, indices.map { BrowserURL(Workload.url($0, cold: false))! }, now: Date(timeIntervalSince1970: now))
        return (r.fresh, r.stale, r.missing)
    }
    func verify() throws -> String {
        // verify() lists records without an intact file and files without a record together:
        // when it lists exactly the files beyond the intact entries, every record is intact.
        let intact = store.stats().entryCount
        let files = try FileManager.default.contentsOfDirectory(atPath: store.directory).filter { $0.hasSuffix(".png") && !$0.hasPrefix(".") }.count
        let listed = store.verify().count
        return "intact=\(intact) files=\(files) verify_listed=\(listed) records_not_intact=\(listed - (files - intact))_if_orphans_only"
    }
}

try weighMain(HandBuiltEngine.self)
