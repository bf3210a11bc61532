// The workloads of Benchmarks/cache/run.sh at the index + files level, the same for both engines
// (this file is compiled into weigh-grdb and, through a symlink, into the clone's weigh-store).
import Foundation

/// One cache engine as the driver drives it.
protocol WeighEngine {
    init(folder: String, maxTotalBytes: Int?) throws
    /// Stores images `indices` (of the big cache, or of the cold page) in one batch at `now`; returns how many.
    func store(_ indices: [Int], cold: Bool, now: Double) throws -> Int
    /// Intact entries and bytes, as `imgcache cache stats` counts them.
    func stats() throws -> (entries: Int, bytes: Int)
    /// A warm page: look up each image, record uses older than a minute; (fresh, stale, missing).
    func warm(_ indices: [Int], now: Double) throws -> (Int, Int, Int)
    /// After a kill -9: intact entries, records whose file is missing or not the one recorded,
    /// image files without a record (what prune deletes), and whether the index reads.
    func verify() throws -> String
}

enum Workload {
    static let t0: Double = 1_800_000_000      // page p of the big cache is stored at t0 + p
    static let pageImages = 2_000
    static let contentType = "image/png"
    static let lastModified = "Sun, 06 Dec 2026 10:00:00 GMT"

    static func url(_ i: Int, cold: Bool) -> String {
        cold ? "http://127.0.0.1:8080/cold/assets/img-\(i).png" : "http://127.0.0.1:8080/assets/img-\(i).png"
    }
    static func etag(_ i: Int, cold: Bool) -> String { "\"\(String(i, radix: 16))-\(cold ? "c" : "b")5f3a\"" }

    /// SplitMix64: deterministic sizes and bytes, cheap beside what is measured.
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Image `i`: 0.5-4 KiB for the big cache (run.sh's --min-kb 0.5 --max-kb 4), 2-40 KiB for the cold page.
    static func bytes(_ i: Int, cold: Bool) -> [UInt8] {
        let (low, high) = cold ? (2_048, 40_960) : (512, 4_096)
        let seed = mix(UInt64(i) &+ (cold ? 0x1_0000_0000 : 0))
        let count = low + Int(seed % UInt64(high - low + 1))
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { buffer in
            var state = seed
            var offset = 0
            while offset + 8 <= buffer.count {
                state = mix(state)
                buffer.storeBytes(of: state, toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            while offset < buffer.count { buffer[offset] = UInt8(truncatingIfNeeded: mix(state &+ UInt64(offset))); offset += 1 }
        }
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        for (k, b) in signature.enumerated() { out[k] = b }
        return out
    }
}

/// weigh-X OP FOLDER [ARGS]:
///   populate ENTRIES BATCH        the big cache: pages of 2,000, batches of BATCH, page p at t0+p
///   stats                         entries and bytes (the intact ones)
///   warm PAGE NOW                 a warm page's 2,000 lookups at t0+NOW
///   store-each FIRST COUNT CAP NOW  COUNT new images one by one under CAP bytes, at t0+NOW (+1 ms each)
///   cold COUNT BATCH              COUNT 2-40 KiB images in batches of BATCH into an empty folder
///   warm-loop PAGE COUNT          COUNT warm pages in one process (one store), each timed: while another
///                                 process writes, whether a reader waits for the writer
///   verify                        intact entries and problems (after a kill -9)
func weighMain<E: WeighEngine>(_ engine: E.Type) throws {
    let args = CommandLine.arguments
    guard args.count >= 3 else { fatalError("usage: OP FOLDER [ARGS]") }
    let op = args[1], folder = args[2]
    let n = args.dropFirst(3).map { Int($0)! }
    let start = Date()
    var result = ""
    switch op {
    case "populate":
        let store = try E(folder: folder, maxTotalBytes: nil)
        var stored = 0
        for page in 0 ..< n[0] / Workload.pageImages {
            let first = page * Workload.pageImages
            for batch in stride(from: first, to: first + Workload.pageImages, by: n[1]) {
                stored += try store.store(Array(batch ..< min(batch + n[1], first + Workload.pageImages)), cold: false, now: Workload.t0 + Double(page))
            }
        }
        result = "stored=\(stored)"
    case "stats":
        let s = try E(folder: folder, maxTotalBytes: nil).stats()
        result = "entries=\(s.entries) bytes=\(s.bytes)"
    case "warm":
        let first = n[0] * Workload.pageImages
        let r = try E(folder: folder, maxTotalBytes: nil).warm(Array(first ..< first + Workload.pageImages), now: Workload.t0 + Double(n[1]))
        result = "fresh=\(r.0) stale=\(r.1) missing=\(r.2)"
    case "store-each":
        let store = try E(folder: folder, maxTotalBytes: n[2])
        var stored = 0
        for k in 0 ..< n[1] { stored += try store.store([n[0] + k], cold: false, now: Workload.t0 + Double(n[3]) + Double(k) / 1000) }
        result = "stored=\(stored)"
    case "cold":
        let store = try E(folder: folder, maxTotalBytes: nil)
        var stored = 0
        for batch in stride(from: 0, to: n[0], by: n[1]) {
            stored += try store.store(Array(batch ..< min(batch + n[1], n[0])), cold: true, now: Workload.t0 + 100_000)
        }
        result = "stored=\(stored)"
    case "warm-loop":
        let store = try E(folder: folder, maxTotalBytes: nil)
        let first = n[0] * Workload.pageImages
        var times: [Double] = []
        var fresh = 0
        for k in 0 ..< n[1] {
            let t = Date()
            fresh += try store.warm(Array(first ..< first + Workload.pageImages), now: Workload.t0 + 5_000 + Double(k) * 0).0   // uses recorded at the first look only
            times.append(Date().timeIntervalSince(t) * 1000)
        }
        times.sort()
        result = String(format: "fresh=%d warm_ms_median=%.1f p90=%.1f max=%.1f", fresh, times[times.count / 2], times[times.count * 9 / 10], times.last!)
    case "verify":
        result = try E(folder: folder, maxTotalBytes: nil).verify()
    default:
        fatalError("unknown op \(op)")
    }
    print("\(op) \(result) inner_s=\(String(format: "%.4f", Date().timeIntervalSince(start)))")
}
