import Foundation
import GRDB
import Shared
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The cache folder of ImageCacheStore with its index in SQLite (through GRDB) instead of the
/// hand-built append-only log, lookup table, compaction, eviction heap and flock:
///
/// ```
/// <folder>/
///   .imgcache.sqlite (+ -wal, -shm)   one row per entry; WAL: readers never wait for the writer
///   3f2a…c1.png                      image bytes, written whole (StagedFile) before their row
/// ```
/// - Crash safety: an image is staged unnamed and linked into place inside the write
///   transaction, then its row is written; the transaction commits both the row and (for
///   eviction) the removals, and victims' files are unlinked only after the commit. A crash
///   leaves at worst a file with no row (never served; a prune deletes it), never a row whose
///   file is partial: the fingerprint (size, inode, mtime) is checked at every lookup.
/// - Processes: SQLite's own locking (WAL, busy timeout) replaces the folder flock; every
///   process sees every commit, so there is nothing to catch up on.
/// - LRU: `last_used` is updated at most once per `lastUseGranularity`; eviction walks the
///   (last_used, local_name) index, ties to the smaller name, as the heap does.
public final class SQLiteImageStore: Sendable {
    public struct Entry: Sendable, Equatable {
        public var url: String
        public var localName: String
        public var byteCount: Int
        public var contentType: String?
        public var etag: String?
        public var lastModified: String?
        public var checksum: UInt64
        public var file: FileFingerprint
        public var fetchedAt: Double
        public var lastUsedAt: Double
    }

    public struct Item: Sendable {
        public var bytes: [UInt8]
        public var url: String
        public var localName: String
        /// True for a URL named by its bytes (no extension): an earlier entry for the URL under another name goes.
        public var namedByBytes: Bool
        public var contentType: String?
        public var etag: String?
        public var lastModified: String?
        public init(bytes: [UInt8], url: String, localName: String, namedByBytes: Bool = false,
                    contentType: String?, etag: String?, lastModified: String?) {
            self.bytes = bytes; self.url = url; self.localName = localName; self.namedByBytes = namedByBytes
            self.contentType = contentType; self.etag = etag; self.lastModified = lastModified
        }
    }

    public enum Lookup: Sendable, Equatable { case fresh(Entry), stale(Entry), missing }

    public static let lastUseGranularity: Double = 60
    public let folder: String
    public let maxAge: Double?
    public let maxTotalBytes: Int?
    private let pool: DatabasePool

    public init(folder: String, maxAge: Double? = nil, maxTotalBytes: Int? = nil, durableWrites: Bool = false) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        self.folder = folder
        self.maxAge = maxAge
        self.maxTotalBytes = maxTotalBytes
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)   // another process's write transaction
        configuration.prepareDatabase { db in
            // WAL commits are atomic either way; FULL adds the fsync that survives power loss.
            try db.execute(sql: durableWrites ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
            if let tuning = ProcessInfo.processInfo.environment["WEIGH_PRAGMAS"] { try db.execute(sql: tuning) }  // experiments only
        }
        pool = try DatabasePool(path: folder + "/.imgcache.sqlite", configuration: configuration)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE entry (
                    local_name TEXT PRIMARY KEY NOT NULL,
                    url TEXT NOT NULL,
                    byte_count INTEGER NOT NULL,
                    content_type TEXT, etag TEXT, last_modified TEXT,
                    checksum INTEGER NOT NULL,
                    file_size INTEGER NOT NULL, file_inode INTEGER NOT NULL, file_mtime_ns INTEGER NOT NULL,
                    fetched_at REAL NOT NULL, last_used_at REAL NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX entry_url ON entry(url);
                CREATE INDEX entry_lru ON entry(last_used_at, local_name);
                CREATE TABLE totals (id INTEGER PRIMARY KEY CHECK (id = 0), entries INTEGER NOT NULL, bytes INTEGER NOT NULL);
                INSERT INTO totals VALUES (0, 0, 0);
                CREATE TRIGGER entry_added AFTER INSERT ON entry BEGIN
                    UPDATE totals SET entries = entries + 1, bytes = bytes + new.byte_count; END;
                CREATE TRIGGER entry_removed AFTER DELETE ON entry BEGIN
                    UPDATE totals SET entries = entries - 1, bytes = bytes - old.byte_count; END;
                CREATE TRIGGER entry_resized AFTER UPDATE OF byte_count ON entry BEGIN
                    UPDATE totals SET bytes = bytes - old.byte_count + new.byte_count; END;
                """)
        }
        try migrator.migrate(pool)
    }

    public func imagePath(_ localName: String) -> String { folder + "/" + localName }

    // MARK: Reading

    private static let columns = "url, local_name, byte_count, content_type, etag, last_modified, checksum, file_size, file_inode, file_mtime_ns, fetched_at, last_used_at"

    private static func entry(_ row: Row) -> Entry {
        Entry(url: row[0], localName: row[1], byteCount: row[2], contentType: row[3], etag: row[4], lastModified: row[5],
              checksum: UInt64(bitPattern: row[6]),
              file: FileFingerprint(size: row[7], inode: row[8], modifiedNanoseconds: row[9]),
              fetchedAt: row[10], lastUsedAt: row[11])
    }

    /// What the index records for each local name (nil: no record), in one read transaction.
    public func entries(forLocalNames names: [String]) throws -> [Entry?] {
        try pool.read { db in
            let statement = try db.cachedStatement(sql: "SELECT \(Self.columns) FROM entry WHERE local_name = ?")
            // A cursor's row is read in place (fetchOne copies it first).
            return try names.map { name in
                let rows = try Row.fetchCursor(statement, arguments: [name])  // held while its row is read
                return try rows.next().map(Self.entry)
            }
        }
    }

    /// What the index records for a URL (the by-bytes names' way in).
    public func entry(forURL url: String) throws -> Entry? {
        try pool.read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT \(Self.columns) FROM entry WHERE url = ?"), arguments: [url]).map(Self.entry)
        }
    }

    /// Whether the recorded file is still the one written (size, inode, mtime): a lookup reads no bytes.
    public func isIntact(_ entry: Entry) -> Bool {
        FileFingerprint(path: imagePath(entry.localName)) == entry.file && Int64(entry.byteCount) == entry.file.size
    }

    /// A page's warm lookups: each (url, local name) looked up, checked against its file, and the
    /// fresh ones whose last use is older than the granularity recorded as used, in one write.
    public func lookUpForUse(_ images: [(url: String, localName: String)], now: Double) throws -> [Lookup] {
        let recorded = try entries(forLocalNames: images.map(\.localName))
        let results = zip(images, recorded).map { image, entry -> Lookup in
            guard let entry, entry.url == image.url, isIntact(entry) else { return .missing }
            if let maxAge, now - entry.fetchedAt >= maxAge { return .stale(entry) }
            return .fresh(entry)
        }
        let due = results.compactMap { result -> String? in
            guard case .fresh(let entry) = result, now - entry.lastUsedAt >= Self.lastUseGranularity else { return nil }
            return entry.localName
        }
        if !due.isEmpty {
            // Best effort, as the hand-built store: a missed use only makes eviction likelier.
            try? pool.write { db in
                let statement = try db.cachedStatement(sql: "UPDATE entry SET last_used_at = ? WHERE local_name = ? AND last_used_at < ?")
                for name in due { try statement.execute(arguments: [now, name, now]) }
            }
        }
        return results
    }

    /// Intact entries and their bytes. `checkFiles: false` is the index's own count (one row read).
    public func stats(checkFiles: Bool = true) throws -> (entries: Int, bytes: Int) {
        try pool.read { db in
            guard checkFiles else {
                let row = try Row.fetchOne(db, sql: "SELECT entries, bytes FROM totals")!
                return (row[0], row[1])
            }
            var entries = 0, bytes = 0
            let rows = try Row.fetchCursor(db, sql: "SELECT local_name, byte_count, file_size, file_inode, file_mtime_ns FROM entry")
            while let row = try rows.next() {
                let name: String = row[0], count: Int = row[1]
                guard FileFingerprint(path: imagePath(name)) == FileFingerprint(size: row[2], inode: row[3], modifiedNanoseconds: row[4]) else { continue }
                entries += 1
                bytes += count
            }
            return (entries, bytes)
        }
    }

    /// Entries whose file is intact, rows whose file is missing or not the one recorded, image
    /// files no row names (what a prune deletes), and SQLite's own integrity check.
    public func verify() throws -> (intact: Int, badRecords: Int, orphanFiles: Int, integrity: String) {
        try pool.read { db in
            var intact = 0, bad = 0
            var named = Set<String>()
            for row in try Row.fetchAll(db, sql: "SELECT local_name, file_size, file_inode, file_mtime_ns FROM entry") {
                let name: String = row[0]
                named.insert(name)
                let recorded = FileFingerprint(size: row[1], inode: row[2], modifiedNanoseconds: row[3])
                if FileFingerprint(path: imagePath(name)) == recorded { intact += 1 } else { bad += 1 }
            }
            let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".png") && !$0.hasPrefix(".") }
            return (intact, bad, files.filter { !named.contains($0) }.count, try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "?")
        }
    }

    // MARK: Writing

    /// Stores images: each staged outside the transaction, then linked into place and recorded in
    /// one write transaction (one per image under a cap, so eviction keeps its order, as the
    /// hand-built store does). Returns how many were stored.
    @discardableResult
    public func store(_ items: [Item], now: Double) throws -> Int {
        if maxTotalBytes != nil && items.count > 1 {
            return try items.reduce(0) { try $0 + store([$1], now: now) }
        }
        let staged = items.map { item in try? StagedFile(item.bytes, for: imagePath(item.localName), folder: folder) }
        var victims: [String] = []
        var stored = 0
        try pool.write { db in
            victims = []
            stored = 0
            let insert = try db.cachedStatement(sql: """
                INSERT INTO entry (\(Self.columns)) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)
                ON CONFLICT (local_name) DO UPDATE SET url = excluded.url, byte_count = excluded.byte_count,
                    content_type = excluded.content_type, etag = excluded.etag, last_modified = excluded.last_modified,
                    checksum = excluded.checksum, file_size = excluded.file_size, file_inode = excluded.file_inode,
                    file_mtime_ns = excluded.file_mtime_ns, fetched_at = excluded.fetched_at, last_used_at = excluded.last_used_at
                """)
            for (item, file) in zip(items, staged) {
                guard let file, file.place(at: imagePath(item.localName)) == 0 else { continue }
                if item.namedByBytes {
                    victims += try String.fetchAll(db, sql: "DELETE FROM entry WHERE url = ? AND local_name <> ? RETURNING local_name",
                                                   arguments: [item.url, item.localName])
                }
                let fp = file.fingerprint
                try insert.execute(arguments: [item.url, item.localName, item.bytes.count, item.contentType, item.etag, item.lastModified,
                                               Int64(bitPattern: XXH64.hash(item.bytes)), fp.size, fp.inode, fp.modifiedNanoseconds, now, now])
                stored += 1
            }
            if let cap = maxTotalBytes { victims += try evict(db, toFit: cap, protecting: items.count == 1 ? items[0].localName : nil) }
        }
        // After the commit: a crash in between leaves files without rows, never rows without files.
        for name in victims { unlink(imagePath(name)) }
        return stored
    }

    /// Deletes the rows of least-recently-used entries (ties to the smaller name) until the
    /// total is at most `cap`; returns their names, whose files the caller unlinks after commit.
    private func evict(_ db: Database, toFit cap: Int, protecting protected: String?) throws -> [String] {
        var total = try Int.fetchOne(db, sql: "SELECT bytes FROM totals")!
        guard total > cap else { return [] }
        var victims: [String] = []
        do {  // the cursor ends before the deletes
            let rows = try Row.fetchCursor(db, sql: "SELECT local_name, byte_count FROM entry ORDER BY last_used_at, local_name")
            while total > cap, let row = try rows.next() {
                let name: String = row[0]
                guard name != protected else { continue }
                victims.append(name)
                total -= row[1] as Int
            }
        }
        let delete = try db.cachedStatement(sql: "DELETE FROM entry WHERE local_name = ?")
        for name in victims { try delete.execute(arguments: [name]) }
        return victims
    }

    /// Deletes a URL's entry and its file.
    @discardableResult
    public func remove(localName: String) throws -> Bool {
        let removed = try pool.write { db in
            try db.execute(sql: "DELETE FROM entry WHERE local_name = ?", arguments: [localName])
            return db.changesCount > 0
        }
        if removed { unlink(imagePath(localName)) }
        return removed
    }
}
