public import Foundation

/// The image cache: a folder of images named by ``LocalImageNaming``, each with a JSON metadata
/// sidecar. The folder is the store — there is no database beside it — so pages rewritten to
/// point into the folder keep working, and any process can open the same folder.
///
/// ## Layout
/// ```
/// <directory>/
///   3f2a…c1.png          the image bytes, exactly as downloaded
///   3f2a…c1.png.json     CacheEntryMetadata (dates in seconds since 1970, with fractions)
///   .imgcache.lock       flock'ed by writers
///   .imgcache.journal    log of changes, so processes can keep size totals without rescanning
///   .<name>.tmp-<pid>-<n>  writes in progress (or left by a killed process; `prune` removes them)
/// ```
/// With fan-out naming the image, its sidecar and its temporary files sit in the
/// two-hex-digit subfolder (`3f/3f2a…c1.png`, `3f/3f2a…c1.png.json`).
///
/// ## Consistency
/// - Every file is written to a temporary file in its own folder and renamed into place, so
///   a reader sees a whole old file or a whole new one, never a partial image.
/// - An image and its sidecar are two files, so they can briefly disagree (another process is
///   between its two renames, or was killed there). The sidecar records the image's size, inode and
///   modification time; an entry whose image does not match is treated as missing, and bytes are
///   only served after their SHA-256 matches the sidecar.
/// - Changes to entries, eviction, `prune` and `clear` run under an exclusive `flock` on
///   `.imgcache.lock`, so processes never evict or clear underneath each other's writes. Reads
///   take no lock (a lookup takes it only to record a refreshed fingerprint; see
///   ``lookup(_:now:)``).
///
/// Thread-safe. Every method does blocking file I/O: call it from a thread of your own or a
/// dispatch queue, not from the Swift concurrency cooperative pool.
public final class ImageCacheStore: Sendable {
    /// The cache folder.
    public let directory: String
    /// How URLs map to file names.
    public let naming: LocalImageNaming
    /// Freshness and size limits.
    public let policy: CachePolicy

    /// `markUsed` skips rewriting a sidecar whose last use is more recent than this: LRU order
    /// does not need finer grain, and a page showing the same image many times should not
    /// rewrite its sidecar each time.
    public static let lastUseGranularity: TimeInterval = 60
    /// How old a temporary file must be before `prune` takes it for debris of a killed process
    /// rather than a write in progress.
    public static let abandonedTemporaryFileAge: TimeInterval = 60 * 60

    let layout: CacheFileLayout
    let reader: CacheEntryReader
    private let exclusive: ThreadLocked<ExclusiveState>

    /// What only the holder of the mutex and the folder lock may touch.
    private struct ExclusiveState {
        let folderLock: CacheFolderLock
        let journal: CacheJournal
        var index: CacheSizeIndex?
    }

    /// Opens (creating if needed) the cache folder at `directory`.
    /// - Parameters:
    ///   - directory: the cache folder; created with its parents if missing.
    ///   - naming: how URLs map to file names; use the same naming as the page rewriter.
    ///   - policy: freshness and size limits.
    /// - Throws: `FileError` when the folder cannot be created.
    public init(directory: String, naming: LocalImageNaming = LocalImageNaming(), policy: CachePolicy = CachePolicy()) throws {
        let layout = CacheFileLayout(folder: directory)
        try CacheFileSystem.createFolder(at: layout.folder)
        self.directory = layout.folder
        self.naming = naming
        self.policy = policy
        self.layout = layout
        self.reader = CacheEntryReader(layout: layout)
        self.exclusive = ThreadLocked(ExclusiveState(
            folderLock: CacheFolderLock(path: layout.lockPath),
            journal: CacheJournal(path: layout.journalPath),
            index: nil
        ))
    }

    // MARK: Paths

    /// Where the image for `url` is (or would be) stored, or nil when the URL cannot be cached
    /// (not http(s), or no enabled image extension). The file may not exist.
    public func path(for url: WebURL) -> String? {
        localName(for: url).map(layout.imagePath)
    }

    /// ``path(for:)`` as a file URL.
    public func fileURL(for url: WebURL) -> URL? {
        path(for: url).map { URL(fileURLWithPath: $0) }
    }

    /// Where the image with this local name is stored, or nil when `localName` is not a name this
    /// cache could have written (such as a path with `..`).
    public func path(forLocalName localName: String) -> String? {
        CacheFileLayout.isValidLocalName(localName) ? layout.imagePath(localName) : nil
    }

    /// The naming's file name for `url`, if it is one the cache can manage. A name with an
    /// extension the folder scan would not recognise (say, non-ASCII) is refused rather than
    /// stored where `clear` and `prune` could never find it.
    func localName(for url: WebURL) -> String? {
        guard let name = naming.localName(for: url), CacheFileLayout.isValidLocalName(name) else { return nil }
        return name
    }

    // MARK: Reading

    /// Whether `url`'s image is cached, and whether it is fresh.
    ///
    /// Reads the sidecar and `stat`s the image; does not read or hash the image. When the
    /// image's size still matches but its inode or modification time changed (the folder was
    /// copied, for example), the bytes are hashed once and, if they still match, the sidecar is
    /// updated so the next lookup is cheap again.
    /// - Returns: `.missing` when either file is absent or unreadable, or they do not match.
    public func lookup(_ url: WebURL, now: Date = Date()) -> CacheLookup {
        guard let localName = localName(for: url) else { return .missing }
        guard let metadata = intactMetadata(localName: localName, url: url.serializedWithoutFragment) else {
            return .missing
        }
        return policy.isStale(fetchedAt: metadata.fetchedAt, now: now) ? .stale(metadata) : .fresh(metadata)
    }

    /// The cached bytes of `url`'s image and their metadata, after checking the bytes' SHA-256
    /// against the metadata; nil when not cached or not intact. Freshness is not considered:
    /// call ``lookup(_:now:)`` for that.
    public func contents(for url: WebURL) -> (bytes: [UInt8], metadata: CacheEntryMetadata)? {
        guard let localName = localName(for: url),
              let metadata = reader.metadata(for: localName),
              metadata.url == url.serializedWithoutFragment,
              let file = reader.verifiedBytes(of: metadata) else { return nil }
        return (file.bytes, metadata)
    }

    /// The cached bytes and metadata for a local name such as `3f2a….png` (what a page rewritten
    /// to use this cache refers to), after checking their SHA-256; nil when the name is not one
    /// this cache writes (anything with `..`, a leading `/`, other folders), or the entry is
    /// absent or not intact. Safe to call with a name taken from a request.
    public func contents(forLocalName localName: String) -> (bytes: [UInt8], metadata: CacheEntryMetadata)? {
        guard CacheFileLayout.isValidLocalName(localName),
              let metadata = reader.metadata(for: localName),
              let file = reader.verifiedBytes(of: metadata) else { return nil }
        return (file.bytes, metadata)
    }

    /// The metadata of an entry that passes the fingerprint check, re-checking by hash (and
    /// recording the new fingerprint) when only the inode or modification time changed.
    func intactMetadata(localName: String, url: String) -> CacheEntryMetadata? {
        switch reader.inspect(localName, expectedURL: url) {
        case .unusable:
            return nil
        case .intact(let metadata):
            return metadata
        case .fingerprintChanged(let metadata):
            guard let file = reader.verifiedBytes(of: metadata) else { return nil }
            try? withExclusiveAccess { _ in
                // Only if nobody changed the entry while we were hashing it.
                guard reader.metadata(for: localName) == metadata,
                      let now = CacheFileSystem.status(ofPath: layout.imagePath(localName)),
                      now.isSameFile(as: file.status), now.fingerprint == file.status.fingerprint else { return }
                var refreshed = metadata
                refreshed.imageFile = file.status.fingerprint
                try writeMetadata(refreshed)
            }
            var result = metadata
            result.imageFile = file.status.fingerprint
            return result
        }
    }

    // MARK: Exclusive sections

    /// Runs `body` holding this store's mutex and the folder's `flock`, with the size index
    /// brought up to date first (for a store with a size cap).
    func withExclusiveAccess<Result>(_ body: (inout CacheFolderSession) throws -> Result) throws -> Result {
        try exclusive.withLock { state in
            try state.folderLock.acquire()
            defer { state.folderLock.release() }
            var session = CacheFolderSession(layout: layout, reader: reader, journal: state.journal, index: state.index)
            defer { state.index = session.index }
            if policy.maxTotalBytes != nil { try session.catchUp() }
            let result = try body(&session)
            session.compactJournalIfLarge()
            return result
        }
    }

    /// Writes an entry's sidecar atomically.
    func writeMetadata(_ metadata: CacheEntryMetadata) throws {
        try CacheFileSystem.replaceFile(
            at: layout.metadataPath(metadata.localName),
            with: CacheMetadataCoding.encode(metadata),
            durable: policy.durableWrites
        )
    }
}
