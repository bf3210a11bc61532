public import Foundation

extension ImageCacheStore {
    /// Deletes every entry (with or without fan-out) and every temporary file, keeping the folder.
    ///
    /// A store in progress in another process whose temporary file is deleted notices and writes
    /// it again, so clearing never fails a concurrent store.
    /// - Returns: how many entries were deleted.
    /// - Throws: `FileError` when a file cannot be deleted.
    @discardableResult
    public func clear() throws -> Int {
        try withExclusiveAccess { session in
            let scan = CacheDirectoryScan(layout: layout)
            var removed = 0
            for localName in scan.imageNames.sorted() where try CacheFileSystem.removeFile(at: layout.imagePath(localName)) {
                removed += 1
            }
            for path in scan.temporaryPaths { _ = try? CacheFileSystem.removeFile(at: path) }
            // An empty folder needs no history: a new, empty index, which other processes notice.
            try session.file.replace(with: [])
            var emptied = CacheIndex()
            emptied.succeed(session.index)
            session.index = emptied
            // The table no longer matches any index (readers would see that); gone is tidier.
            _ = try? CacheFileSystem.removeFile(at: layout.lookupTablePath)
            return removed
        }
    }

    /// Deletes what is no longer worth keeping:
    /// - entries older than ``CachePolicy/maxAge`` (by `fetchedAt`; with a `maxAge` of 0 that
    ///   is every entry),
    /// - entries whose image does not match its record (checked by size, inode and modification
    ///   time; an entry that only fails the latter two is hashed, and kept with an updated
    ///   record if its bytes are intact),
    /// - images the index has no record of, and records whose image is gone,
    /// - temporary files older than `abandonedTemporaryFileAge` at `now`, left by killed
    ///   processes,
    /// then evicts least-recently-used entries while over ``CachePolicy/maxTotalBytes``, and
    /// rewrites the index as a snapshot of what is left.
    /// - Returns: how many entries were deleted; temporary files are not counted.
    /// - Throws: `FileError` when a file cannot be deleted.
    @discardableResult
    public func prune(now: Date = Date()) throws -> Int {
        try withExclusiveAccess { session in
            let scan = CacheDirectoryScan(layout: layout)
            var kept = CacheIndex()
            var deleted = 0
            let recorded = session.index.allEntries()
            for localName in scan.imageNames.union(session.index.localNames).sorted() {
                if let metadata = keptMetadata(recorded[localName], now: now) {
                    kept.apply(.entry(metadata))
                    continue
                }
                let hadImage = try CacheFileSystem.removeFile(at: layout.imagePath(localName))
                if hadImage || session.index.byteCount(of: localName) != nil { deleted += 1 }
            }
            kept.succeed(session.index)
            try session.replaceIndex(with: kept)
            let abandonedBefore = now.addingTimeInterval(-Self.abandonedTemporaryFileAge)
            for path in scan.temporaryPaths {
                guard let status = CacheFileSystem.status(ofPath: path),
                      status.modifiedAtNanoseconds < Self.nanoseconds(abandonedBefore) else { continue }
                _ = try? CacheFileSystem.removeFile(at: path)
            }
            var evicted = 0
            if let cap = policy.maxTotalBytes { evicted = try session.evict(toFit: cap, protecting: nil) }
            return deleted + evicted
        }
    }

    /// The metadata of an entry `prune` keeps, or nil for one it deletes.
    private func keptMetadata(_ recorded: CacheEntryMetadata?, now: Date) -> CacheEntryMetadata? {
        switch reader.inspect(recorded, expectedURL: nil) {
        case .unusable:
            return nil
        case .intact(let metadata):
            return policy.isStale(fetchedAt: metadata.fetchedAt, now: now) ? nil : metadata
        case .fingerprintChanged(var metadata):
            // Stale entries go anyway; only hash the ones worth keeping.
            guard !policy.isStale(fetchedAt: metadata.fetchedAt, now: now),
                  let file = reader.verifiedBytes(of: metadata) else { return nil }
            metadata.imageFile = file.status.fingerprint
            return metadata
        }
    }

    /// How many intact entries the folder holds, their total size, and the range of their fetch
    /// times. Counts what a lookup would find without rehashing; takes no lock, so it is a
    /// snapshot that concurrent writers may already have changed.
    public func stats() -> CacheStats {
        var stats = CacheStats(entryCount: 0, totalBytes: 0, oldestFetchedAt: nil, newestFetchedAt: nil)
        for entry in recordedSummaries()
        where reader.isIntact(localName: entry.localName, byteCount: entry.byteCount, imageFile: entry.imageFile) {
            stats.entryCount += 1
            stats.totalBytes += entry.byteCount
            stats.oldestFetchedAt = min(stats.oldestFetchedAt ?? entry.fetchedAt, entry.fetchedAt)
            stats.newestFetchedAt = max(stats.newestFetchedAt ?? entry.fetchedAt, entry.fetchedAt)
        }
        return stats
    }

    /// Reads and hashes every entry, and returns the local names (sorted) whose bytes do not match
    /// their record, including images without a record and records without an image. Slow on a
    /// big cache (it reads everything) and takes no lock, so an entry being written by another
    /// process at that moment may be reported.
    public func verify() -> [String] {
        let recorded = recordedEntries()
        let scan = CacheDirectoryScan(layout: layout)
        return scan.imageNames.union(recorded.keys).sorted().filter { localName in
            guard let metadata = recorded[localName] else { return true }
            return reader.verifiedBytes(of: metadata) == nil
        }
    }

    static func nanoseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1_000_000_000).rounded(.down))
    }
}
