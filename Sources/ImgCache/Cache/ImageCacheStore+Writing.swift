public import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension ImageCacheStore {
    /// Stores a downloaded image, replacing any earlier copy, then evicts least-recently-used
    /// entries while the cache is over ``CachePolicy/maxTotalBytes``.
    ///
    /// The bytes are written to a temporary file first, outside the folder lock so that
    /// concurrent stores overlap their writes; the rename into place, the sidecar and eviction
    /// happen under the lock. Storing reads no other entries: sizes come from a running total
    /// kept in memory and shared with other processes through the journal (a store with a size
    /// cap lists the folder once, on its first write, and again only when the journal cannot be
    /// followed).
    /// - Parameters:
    ///   - bytes: the image exactly as received.
    ///   - url: the image's URL; its fragment is ignored.
    ///   - contentType, etag, lastModified: the response headers, verbatim, if present.
    ///   - now: the fetch time, recorded as both `fetchedAt` and `lastUsedAt`.
    /// - Returns: the metadata written.
    /// - Throws: ``ImageCacheError/noLocalName(url:)`` for a URL the naming cannot name;
    ///   ``ImageCacheError/largerThanCache(url:byteCount:maxTotalBytes:)`` when the image alone
    ///   exceeds the cap (nothing is stored or evicted); `FileError` when a file cannot be written.
    @discardableResult
    public func store(
        _ bytes: [UInt8],
        for url: WebURL,
        contentType: String?,
        etag: String?,
        lastModified: String?,
        now: Date = Date()
    ) throws -> CacheEntryMetadata {
        let urlString = url.serializedWithoutFragment
        guard let localName = localName(for: url) else { throw ImageCacheError.noLocalName(url: urlString) }
        if let cap = policy.maxTotalBytes, bytes.count > cap {
            // Evicting everything else would not make room, so evict nothing.
            throw ImageCacheError.largerThanCache(url: urlString, byteCount: bytes.count, maxTotalBytes: cap)
        }
        let sha256 = CacheContentDigest.sha256Hex(bytes)
        let imagePath = layout.imagePath(localName)
        let folder = layout.subfolderPath(localName) ?? layout.folder
        // Fails when the folder is missing (a fan-out subfolder not made yet, or a folder someone
        // deleted), which is then created and the write done again under the lock. Not checked
        // first: that cost a few `stat`s per image for a case that almost never happens.
        let staged = try? CacheFileSystem.writeTemporaryFile(bytes, beside: imagePath, durable: policy.durableWrites)
        // The lock file lives in the cache folder too.
        if staged == nil { try CacheFileSystem.createFolder(at: folder) }

        return try withExclusiveAccess { session in
            let image: FileStatus
            if let staged, CacheFileSystem.rename(staged.path, to: imagePath) == 0 {
                image = staged.status
            } else {
                // The unlocked write failed, or a `clear` in another process removed its temporary
                // file before we got the lock. Neither can recur while we hold the lock, so write
                // again; a second failure is a real one.
                if let staged { unlink(staged.path) }
                try CacheFileSystem.createFolder(at: folder)
                let retry = try CacheFileSystem.writeTemporaryFile(bytes, beside: imagePath, durable: policy.durableWrites)
                let failure = CacheFileSystem.rename(retry.path, to: imagePath)
                if failure != 0 {
                    unlink(retry.path)
                    throw FileError(path: imagePath, errno: failure)
                }
                image = retry.status
            }
            if policy.durableWrites { CacheFileSystem.syncFolder(containing: imagePath) }
            let time = CacheMetadataCoding.storable(now)
            let metadata = CacheEntryMetadata(
                url: urlString, localName: localName, contentType: contentType,
                byteCount: bytes.count, sha256: sha256, etag: etag, lastModified: lastModified,
                fetchedAt: time, lastUsedAt: time, imageFile: image.fingerprint
            )
            do {
                try writeMetadata(metadata)
            } catch {
                // The new image is in place but any old sidecar describes other bytes: the entry
                // reads as missing either way, so give the space back now.
                _ = try? session.removeEntry(localName)
                throw error
            }
            session.recordStored(metadata)
            // The image is stored whatever happens next, so a file that cannot be evicted (a
            // permissions problem) must not make this call report failure; eviction resumes on
            // the next store.
            if let cap = policy.maxTotalBytes { _ = try? session.evict(toFit: cap, protecting: localName) }
            return metadata
        }
    }

    /// Records a `304 Not Modified`: the cached bytes are still right. Restarts the freshness
    /// clock (`fetchedAt`), counts as a use (`lastUsedAt`), and replaces the validators that are
    /// given (a nil one keeps the stored value, since a 304 may omit headers).
    /// - Throws: ``ImageCacheError/notCached(url:)`` when there is no intact entry to keep;
    ///   ``ImageCacheError/noLocalName(url:)``; `FileError` when the sidecar cannot be written.
    public func markRevalidated(_ url: WebURL, etag: String?, lastModified: String?, now: Date = Date()) throws {
        let urlString = url.serializedWithoutFragment
        guard let localName = localName(for: url) else { throw ImageCacheError.noLocalName(url: urlString) }
        try withExclusiveAccess { session in
            var metadata: CacheEntryMetadata
            switch reader.inspect(localName, expectedURL: urlString) {
            case .unusable:
                throw ImageCacheError.notCached(url: urlString)
            case .intact(let found):
                metadata = found
            case .fingerprintChanged(let found):
                guard let file = reader.verifiedBytes(of: found) else { throw ImageCacheError.notCached(url: urlString) }
                metadata = found
                metadata.imageFile = file.status.fingerprint
            }
            let time = CacheMetadataCoding.storable(now)
            metadata.fetchedAt = time
            metadata.lastUsedAt = time
            if let etag { metadata.etag = etag }
            if let lastModified { metadata.lastModified = lastModified }
            try writeMetadata(metadata)
            session.recordStored(metadata)
        }
    }

    /// Records that `url`'s image was used (shown, served), so eviction keeps it longer.
    ///
    /// Cheap when repeated: if the recorded last use is less than ``lastUseGranularity`` old,
    /// nothing is written and no lock is taken. Failures are ignored; a missed update only makes
    /// the entry a little likelier to be evicted.
    public func markUsed(_ url: WebURL, now: Date = Date()) {
        let urlString = url.serializedWithoutFragment
        guard let localName = localName(for: url),
              let recorded = reader.metadata(for: localName), recorded.url == urlString,
              now.timeIntervalSince(recorded.lastUsedAt) >= Self.lastUseGranularity else { return }
        try? withExclusiveAccess { session in
            // Read again under the lock: the entry may have been replaced or removed meanwhile.
            guard case .intact(var metadata) = reader.inspect(localName, expectedURL: urlString),
                  metadata.lastUsedAt < now else { return }
            metadata.lastUsedAt = CacheMetadataCoding.storable(now)
            try writeMetadata(metadata)
            session.recordStored(metadata)
        }
    }

    /// Looks up many images at once and records the fresh ones as used: what a page's warm run
    /// needs, in one pass. Entries whose last use is older than ``lastUseGranularity`` are updated
    /// under a single hold of the folder lock rather than one per image.
    /// - Returns: one ``CacheLookup`` per URL, in order.
    public func lookUpForUse(_ urls: [WebURL], now: Date = Date()) -> [CacheLookup] {
        let results = urls.map { lookup($0, now: now) }
        let due = results.compactMap { result -> CacheEntryMetadata? in
            guard case .fresh(let metadata) = result, now.timeIntervalSince(metadata.lastUsedAt) >= Self.lastUseGranularity
            else { return nil }
            return metadata
        }
        guard !due.isEmpty else { return results }
        try? withExclusiveAccess { session in
            for recorded in due {
                // Read again under the lock: the entry may have been replaced or removed meanwhile.
                guard case .intact(var metadata) = reader.inspect(recorded.localName, expectedURL: recorded.url),
                      metadata.lastUsedAt < now else { continue }
                metadata.lastUsedAt = CacheMetadataCoding.storable(now)
                try writeMetadata(metadata)
                session.recordStored(metadata)
            }
        }
        return results
    }

    /// Deletes `url`'s entry.
    /// - Returns: whether there was anything to delete.
    /// - Throws: `FileError` when a file exists but cannot be deleted.
    @discardableResult
    public func remove(_ url: WebURL) throws -> Bool {
        guard let localName = localName(for: url) else { return false }
        return try withExclusiveAccess { session in try session.removeEntry(localName) }
    }
}
