#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `.imgcache.lookup`: where each entry's record is in the index file, by a hash of its local
/// name, so that a run that looks up a page's images reads those records and the few appended
/// since, not the whole index. A big index runs to tens of megabytes; reading it all made a warm
/// run of a large page take many times as long as the page itself (measured:
/// Benchmarks/HISTORY.md, "A cache that lives for months").
///
/// The index stays the only truth: the table is derived from it, names the index file it was
/// made from (device, inode, and checksums of its first bytes and of the bytes just before where
/// the table stops), and covers it up to a length. A reader uses it only when all of that still
/// matches, reads the lines appended after that length as it reads any lines, and checks that
/// each record the table points at is an entry record of the name it looked for. Anything else
/// (no table, another file, a damaged row) falls back to reading the whole index. So the table
/// needs no lock to read, no `fsync`, and no care when a process dies while writing it: it is
/// written to a temporary file and renamed into place by a holder of the folder lock.
///
/// Layout, little-endian: a 64-byte header (magic, device, inode, covered length, row count,
/// head checksum, tail checksum, reserved), then the rows sorted by hash, 32 bytes each
/// (hash, offset, length, reserved, last use as seconds since 1970).
struct CacheLookupTable {
    /// Where one entry's current record is.
    struct Row {
        var nameHash: UInt64
        var offset: Int
        var length: Int
        /// The entry's last use when the table was made (later than its record's own after a
        /// `used` record).
        var lastUsedAt: Double
    }

    /// The index file the table was made from, and how much of it it covers.
    struct Source: Equatable {
        var device: UInt64
        var inode: UInt64
        /// The table describes the index's lines before this offset (always just after a newline).
        var coveredLength: Int
        var headChecksum: UInt64
        var tailChecksum: UInt64
    }

    static let fileName = ".imgcache.lookup"
    private static let magic = Array("IMGCLKT1".utf8)
    private static let headerSize = 64
    private static let rowSize = 32
    /// The checksummed stretches at the start of the covered part and just before its end.
    static let checkedLength = 4096

    let source: Source
    /// Sorted by ``Row/nameHash``.
    private let rows: [Row]

    var count: Int { rows.count }

    // MARK: Names

    /// FNV-1a over the name's UTF-8: stable across processes and runs (Swift's `Hasher` is seeded
    /// per process), and cheap enough to hash 100,000 names when the table is made.
    static func nameHash(_ name: String) -> UInt64 {
        name.withUTF8Bytes { nameHash(utf8: $0) }
    }

    /// ``nameHash(_:)`` of UTF-8 bytes.
    static func nameHash(utf8: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    /// The rows whose name hash is `hash` (almost always one, or none).
    func rows(forHash hash: UInt64) -> ArraySlice<Row> {
        var low = 0, high = rows.count
        while low < high {
            let middle = (low + high) / 2
            if rows[middle].nameHash < hash { low = middle + 1 } else { high = middle }
        }
        var end = low
        while end < rows.count, rows[end].nameHash == hash { end += 1 }
        return rows[low..<end]
    }

    // MARK: Checking the index file

    /// The ``Source`` of the index file open as `handle`, covered up to `coveredLength`; nil when
    /// its bytes cannot be read.
    static func source(of handle: CacheIndexFileHandle, status: FileStatus, coveredLength: Int) -> Source? {
        guard coveredLength <= status.size else { return nil }
        let headLength = min(coveredLength, checkedLength)
        guard let head = handle.read(offset: 0, length: headLength),
              let tail = handle.read(offset: coveredLength - headLength, length: headLength) else { return nil }
        return Source(device: status.device, inode: status.inode, coveredLength: coveredLength,
                      headChecksum: checksum(head), tailChecksum: checksum(tail))
    }

    private static func checksum(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBufferPointer { nameHash(utf8: $0) }
    }

    // MARK: Reading and writing

    /// Just the ``Source`` of the table at `path` (its header): how far it covers which index file.
    static func readSource(at path: String) -> Source? {
        guard let header = CacheIndexFileHandle(openingForReading: path)?.read(offset: 0, length: headerSize) else { return nil }
        return header.withUnsafeBytes { raw in Self.source(inHeader: raw) }
    }

    private static func source(inHeader raw: UnsafeRawBufferPointer) -> Source? {
        guard raw.count >= headerSize, raw.prefix(magic.count).elementsEqual(magic) else { return nil }
        func word(_ offset: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
        guard let covered = Int(exactly: word(24)) else { return nil }
        return Source(device: word(8), inode: word(16), coveredLength: covered, headChecksum: word(40), tailChecksum: word(48))
    }

    /// Reads the table at `path`; nil when there is none or it is not a whole table of this format.
    static func read(at path: String) -> CacheLookupTable? {
        guard let (bytes, status) = CacheFileSystem.readFile(at: path),
              status.size >= headerSize, (status.size - headerSize) % rowSize == 0 else { return nil }
        return bytes.withUnsafeBytes { raw -> CacheLookupTable? in
            guard let source = Self.source(inHeader: raw) else { return nil }
            func word(_ offset: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) }
            let rowCount = Int(truncatingIfNeeded: word(32))
            guard rowCount == (status.size - headerSize) / rowSize else { return nil }
            let covered = source.coveredLength
            var rows: [Row] = []
            rows.reserveCapacity(rowCount)
            var previousHash: UInt64 = 0
            for index in 0..<rowCount {
                let at = headerSize + index * rowSize
                let row = Row(nameHash: word(at), offset: Int(truncatingIfNeeded: word(at + 8)),
                              length: Int(truncatingIfNeeded: word(at + 16)),
                              lastUsedAt: Double(bitPattern: word(at + 24)))
                // Out of order or out of range: not a table this code wrote.
                guard row.nameHash >= previousHash, row.offset >= 0, row.length > 0,
                      row.offset + row.length < covered else { return nil }
                previousHash = row.nameHash
                rows.append(row)
            }
            return CacheLookupTable(source: source, rows: rows)
        }
    }

    /// Writes a table of `rows` for `source` to `path` (a temporary file renamed into place).
    static func write(_ rows: [Row], for source: Source, to path: String) throws {
        let rows = rows.sorted { ($0.nameHash, $0.offset) < ($1.nameHash, $1.offset) }
        var bytes = [UInt8]()
        bytes.reserveCapacity(headerSize + rows.count * rowSize)
        func append(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        bytes += magic
        for value in [source.device, source.inode, UInt64(source.coveredLength), UInt64(rows.count),
                      source.headChecksum, source.tailChecksum, 0] { append(value) }
        for row in rows {
            append(row.nameHash)
            append(UInt64(row.offset))
            append(UInt64(row.length))
            append(row.lastUsedAt.bitPattern)
        }
        try CacheFileSystem.replaceFile(at: path, with: bytes, durable: false)
    }
}
