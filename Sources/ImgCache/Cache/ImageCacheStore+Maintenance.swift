public import Foundation

extension ImageCacheStore {
    /// Deletes every entry (with or without fan-out) and every temporary file, keeping the folder.
    ///
    /// A store in progress in another process whose temporary file is deleted notices and writes
    /// it again, so clearing never fails a concurrent store.
    /// - Returns: how many entries were deleted (an image and its sidecar count once).
    /// - Throws: `FileError` when a file cannot be deleted.
    @discardableResult
    public func clear() throws -> Int {
        try withExclusiveAccess { session in
            let scan = CacheDirectoryScan(layout: layout)
            var removed = 0
            for localName in scan.sortedLocalNames where try session.removeEntryFiles(localName) {
                removed += 1
            }
            for path in scan.temporaryPaths { _ = try? CacheFileSystem.removeFile(at: path) }
            // An empty folder needs no history: start the journal afresh, which tells other
            // processes to rebuild their (now trivial) index.
            if session.index != nil { session.index = CacheSizeIndex() }
            try session.journal.reset()
            return removed
        }
    }

    /// Deletes what is no longer worth keeping:
    /// - entries older than ``CachePolicy/maxAge`` (by `fetchedAt`; with a `maxAge` of 0 that
    ///   is every entry),
    /// - entries whose image does not match its sidecar (checked by size, inode and modification
    ///   time; an entry that only fails the latter two is hashed, and kept with an updated
    ///   sidecar if its bytes are intact),
    /// - half entries (an image without a readable sidecar or the reverse),
    /// - temporary files older than ``abandonedTemporaryFileAge`` at `now`, left by killed processes,
    /// and then evicts least-recently-used entries while over ``CachePolicy/maxTotalBytes``.
    /// - Returns: how many entries were deleted; temporary files are not counted.
    /// - Throws: `FileError` when a file cannot be deleted.
    @discardableResult
    public func prune(now: Date = Date()) throws -> Int {
        try withExclusiveAccess { session in
            let scan = CacheDirectoryScan(layout: layout)
            var kept = CacheSizeIndex()
            var doomed: [String] = []
            for localName in scan.sortedLocalNames {
                guard let metadata = keptMetadata(localName, now: now) else {
                    doomed.append(localName)
                    continue
                }
                kept.apply(.stored(localName: localName, byteCount: metadata.byteCount,
                                   lastUsedAt: metadata.lastUsedAt.timeIntervalSince1970))
            }
            // The listing just made is the truth; the journal adds nothing to it.
            if session.index != nil {
                session.index = kept
                try session.journal.markCaughtUp()
            }
            for localName in doomed { try session.removeEntry(localName) }
            let abandonedBefore = now.addingTimeInterval(-Self.abandonedTemporaryFileAge)
            for path in scan.temporaryPaths {
                guard let status = CacheFileSystem.status(ofPath: path),
                      status.modifiedAtNanoseconds < Self.nanoseconds(abandonedBefore) else { continue }
                _ = try? CacheFileSystem.removeFile(at: path)
            }
            var evicted = 0
            if let cap = policy.maxTotalBytes { evicted = try session.evict(toFit: cap, protecting: nil) }
            return doomed.count + evicted
        }
    }

    /// The metadata of an entry `prune` keeps, or nil for one it deletes.
    private func keptMetadata(_ localName: String, now: Date) -> CacheEntryMetadata? {
        switch reader.inspect(localName, expectedURL: nil) {
        case .unusable:
            return nil
        case .intact(let metadata):
            return policy.isStale(fetchedAt: metadata.fetchedAt, now: now) ? nil : metadata
        case .fingerprintChanged(var metadata):
            // Stale entries go anyway; only hash the ones worth keeping.
            guard !policy.isStale(fetchedAt: metadata.fetchedAt, now: now),
                  let file = reader.verifiedBytes(of: metadata) else { return nil }
            metadata.imageFile = file.status.fingerprint
            // Already under the lock: record the new fingerprint so lookups stop rehashing.
            guard (try? writeMetadata(metadata)) != nil else { return nil }
            return metadata
        }
    }

    /// How many intact entries the folder holds, their total size, and the range of their fetch
    /// times. Counts what a lookup would find without rehashing; takes no lock, so it is a
    /// snapshot that concurrent writers may already have changed.
    public func stats() -> CacheStats {
        var stats = CacheStats(entryCount: 0, totalBytes: 0, oldestFetchedAt: nil, newestFetchedAt: nil)
        let scan = CacheDirectoryScan(layout: layout)
        for (localName, halves) in scan.entries where halves.hasImage && halves.hasMetadata {
            guard case .intact(let metadata) = reader.inspect(localName, expectedURL: nil) else { continue }
            stats.entryCount += 1
            stats.totalBytes += metadata.byteCount
            stats.oldestFetchedAt = min(stats.oldestFetchedAt ?? metadata.fetchedAt, metadata.fetchedAt)
            stats.newestFetchedAt = max(stats.newestFetchedAt ?? metadata.fetchedAt, metadata.fetchedAt)
        }
        return stats
    }

    /// Reads and hashes every entry, and returns the local names (sorted) whose bytes do not match
    /// their metadata, including half entries. Slow on a big cache (it reads everything) and
    /// takes no lock, so an entry being written by another process at that moment may be reported.
    public func verify() -> [String] {
        let scan = CacheDirectoryScan(layout: layout)
        return scan.sortedLocalNames.filter { localName in
            guard let halves = scan.entries[localName], halves.hasImage, halves.hasMetadata,
                  let metadata = reader.metadata(for: localName) else { return true }
            return reader.verifiedBytes(of: metadata) == nil
        }
    }

    static func nanoseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1_000_000_000).rounded(.down))
    }
}
