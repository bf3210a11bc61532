package import Foundation
import ImgCacheSupport
public import ImgCacheURLs
import ImgCacheMarkup
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
    /// concurrent stores overlap their writes; the rename into place, the index record and
    /// eviction happen under the lock. Storing reads no other entries: sizes come from the index,
    /// which every process keeps current by reading what the others appended.
    /// - Parameters:
    ///   - bytes: the image exactly as received.
    ///   - url: the image's URL; its fragment is ignored.
    ///   - contentType: the response's `Content-Type`, verbatim, if present.
    ///   - etag: its `ETag`, verbatim, if present.
    ///   - lastModified: its `Last-Modified`, verbatim, if present.
    ///   - now: the fetch time, recorded as both `fetchedAt` and `lastUsedAt`.
    /// - Returns: the metadata written.
    /// - Throws: `ImageCacheError` (no local name) for a URL the naming cannot name;
    ///   `ImageCacheError` (larger than the cache) when the image alone
    ///   exceeds the cap (nothing is stored or evicted); `FileError` when a file cannot be written.
    @discardableResult
    package func store(
        _ bytes: [UInt8],
        for url: BrowserURL,
        contentType: String?,
        etag: String?,
        lastModified: String?,
        now: Date = Date()
    ) throws -> CachedImage {
        CachedImage(try storeEntry(bytes, for: url, contentType: contentType, etag: etag, lastModified: lastModified, now: now))
    }

    /// ``store(_:for:contentType:etag:lastModified:now:)`` giving the index record; `format`: the
    /// bytes' format, when it was already read; `urlName`: the name the URL gives the image, when
    /// the caller has it.
    @discardableResult
    func storeEntry(_ bytes: [UInt8], for url: BrowserURL, contentType: String?, etag: String?, lastModified: String?,
                    format: ImageFormat? = nil, urlName: String? = nil, now: Date = Date()) throws -> CacheEntryMetadata {
        let urlString = url.serializedWithoutFragment
        guard let localName = storageName(for: url, bytes: bytes, format: format, urlName: urlName) else { throw ImageCacheError.noLocalName(url: urlString) }
        if let cap = policy.maxTotalBytes, bytes.count > cap {
            // Evicting everything else would not make room, so evict nothing.
            throw ImageCacheError.largerThanCache(url: urlString, byteCount: bytes.count, maxTotalBytes: cap)
        }
        let checksum = ContentChecksum(of: bytes)
        let imagePath = layout.imagePath(localName)
        let staged = try stage(bytes, localName: localName)

        return try withExclusiveAccess { session in
            let image = try place(staged, bytes: bytes, localName: localName)
            let time = CacheIndexRecord.storable(now)
            let metadata = CacheEntryMetadata(
                url: urlString, localName: localName, contentType: contentType,
                byteCount: bytes.count, checksum: checksum, etag: etag, lastModified: lastModified,
                fetchedAt: time, lastUsedAt: time, imageFile: image.fingerprint
            )
            let superseded = (urlName ?? naming.localName(for: url)) == nil ? session.superseded(url: urlString, by: localName) : nil
            do {
                try session.record([.entry(metadata)])
            } catch {
                // The new image is in place but any older record describes other bytes: the entry
                // reads as missing either way, so give the space back now.
                unlink(imagePath)
                throw error
            }
            if let superseded { _ = try? session.removeEntry(superseded) }
            // The image is stored whatever happens next, so a file that cannot be evicted (a
            // permissions problem) must not make this call report failure; eviction resumes on
            // the next store.
            if let cap = policy.maxTotalBytes { _ = try? session.evict(toFit: cap, protecting: localName) }
            return metadata
        }
    }

    /// Writes an image to an unnamed (or temporary) file in its folder, outside the folder lock, so
    /// that concurrent stores overlap their writes. Nil when that failed because the folder is
    /// missing (a fan-out subfolder not made yet, or a folder someone deleted): the folder is then
    /// created here and ``place(_:bytes:localName:)`` writes again under the lock. Not checked
    /// first: that cost a few `stat`s per image for a case that almost never happens.
    func stage(_ bytes: [UInt8], localName: String) throws -> StagedImageFile? {
        let staged = try? StagedImageFile.write(bytes, for: layout.imagePath(localName), durable: policy.durableWrites, support: staging)
        // The lock file lives in the cache folder too.
        if staged == nil { try CacheFileSystem.createFolder(at: layout.subfolderPath(localName) ?? layout.folder) }
        return staged
    }

    /// Links a staged image into place, or writes it again when there is none; call with the
    /// folder lock held. Returns the image file's status.
    func place(_ staged: StagedImageFile?, bytes: [UInt8], localName: String) throws -> FileStatus {
        let imagePath = layout.imagePath(localName)
        let image: FileStatus
        if let staged, staged.place(at: imagePath) == 0 {
            image = staged.status
        } else {
            // The unlocked write failed, or a `clear` in another process removed its temporary
            // file before we got the lock. Neither can recur while we hold the lock, so write
            // again; a second failure is a real one.
            try CacheFileSystem.createFolder(at: layout.subfolderPath(localName) ?? layout.folder)
            let retry = try StagedImageFile.write(bytes, for: imagePath, durable: policy.durableWrites, support: staging)
            let failure = retry.place(at: imagePath)
            guard failure == 0 else { throw FileError(path: imagePath, errno: failure) }
            image = retry.status
        }
        if policy.durableWrites { CacheFileSystem.syncFolder(containing: imagePath) }
        return image
    }

    /// Records a `304 Not Modified`: the cached bytes are still right. Restarts the freshness
    /// clock (`fetchedAt`), counts as a use (`lastUsedAt`), and replaces the validators that are
    /// given (a nil one keeps the stored value, since a 304 may omit headers).
    /// - Throws: `ImageCacheError` (not cached) when there is no intact entry to keep;
    ///   `ImageCacheError` (no local name); `FileError` when the index cannot be written.
    package func markRevalidated(_ url: BrowserURL, etag: String?, lastModified: String?, now: Date = Date()) throws {
        let urlString = url.serializedWithoutFragment
        guard let localName = localName(for: url) else { throw ImageCacheError.noLocalName(url: urlString) }
        try withExclusiveAccess { session in
            var metadata: CacheEntryMetadata
            switch reader.inspect(session.index[localName], expectedURL: urlString) {
            case .unusable:
                throw ImageCacheError.notCached(url: urlString)
            case .intact(let found):
                metadata = found
            case .fingerprintChanged(let found):
                guard let file = reader.verifiedBytes(of: found) else { throw ImageCacheError.notCached(url: urlString) }
                metadata = found
                metadata.imageFile = file.status.fingerprint
            }
            let time = CacheIndexRecord.storable(now)
            metadata.fetchedAt = time
            metadata.lastUsedAt = time
            if let etag { metadata.etag = etag }
            if let lastModified { metadata.lastModified = lastModified }
            try session.record([.entry(metadata)])
        }
    }

    /// Records that `url`'s image was used (shown, served), so eviction keeps it longer.
    ///
    /// Cheap when repeated: if the recorded last use is less than ``lastUseGranularity`` old,
    /// nothing is written and no lock is taken. Failures are ignored; a missed update only makes
    /// the entry a little likelier to be evicted.
    package func markUsed(_ url: BrowserURL, now: Date = Date()) {
        let urlString = url.serializedWithoutFragment
        guard let localName = localName(for: url),
              let recorded = metadata(for: localName), recorded.url == urlString,
              now.timeIntervalSince(recorded.lastUsedAt) >= Self.lastUseGranularity else { return }
        recordUses([recorded], now: now)
    }

    /// Looks up many images at once and records the fresh ones as used: what a page's warm run
    /// needs, in one pass. The index is read once, and uses older than ``lastUseGranularity``
    /// are recorded in one append under a single hold of the folder lock.
    /// An image's name is taken from its ``ImageToFetch/urlName`` when the caller made it.
    /// - Returns: one ``CacheLookup`` per image, in order.
    package func lookUpForUse(_ images: [ImageToFetch], now: Date = Date()) -> [CacheLookup] {
        let localNames = localNames(for: images)
        let recorded = metadata(forLocalNames: localNames)
        let results = images.indices.map { position -> CacheLookup in
            guard let localName = localNames[position] else { return .missing }
            return lookup(localName: localName, url: images[position].url.serializedWithoutFragment, recorded: recorded[position], now: now)
        }
        let due = results.compactMap { result -> CacheEntryMetadata? in
            guard case .fresh(let metadata) = result, now.timeIntervalSince(metadata.lastUsedAt) >= Self.lastUseGranularity
            else { return nil }
            return metadata
        }
        recordUses(due, now: now)
        rememberAnswers(freshAmong: results, at: now)
        return results
    }

    /// Records a use of each entry, unless it changed meanwhile or was used since.
    private func recordUses(_ entries: [CacheEntryMetadata], now: Date) {
        guard !entries.isEmpty else { return }
        let time = CacheIndexRecord.storable(now)
        if recordUsesThroughLookupTable(entries, at: time) { return }
        try? withExclusiveAccess { session in
            // Checked again under the lock: an entry may have been replaced or removed meanwhile.
            let uses = entries.compactMap { seen -> CacheIndexRecord? in
                guard let current = session.index[seen.localName], current.url == seen.url,
                      current.imageFile == seen.imageFile, current.lastUsedAt < time else { return nil }
                return .used(localName: seen.localName, at: time)
            }
            try session.record(uses)
        }
    }

    /// Deletes `url`'s entry.
    /// - Returns: whether there was anything to delete.
    /// - Throws: `FileError` when a file exists but cannot be deleted.
    @discardableResult
    public func remove(_ url: BrowserURL) throws -> Bool {
        guard let localName = localName(for: url) else { return false }
        return try withExclusiveAccess { session in try session.removeEntry(localName) }
    }
}
