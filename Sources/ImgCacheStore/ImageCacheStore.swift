public import Foundation
import ImgCacheSupport
public import ImgCacheURLs
public import ImgCacheMarkup

/// The image cache: a folder of images named by ``LocalImageNaming``, and one index file holding
/// every entry's metadata. The folder is the store — there is no database beside it — so pages
/// rewritten to point into the folder keep working, and any process can open the same folder.
///
/// ## Layout
/// ```
/// <directory>/
///   3f2a…c1.png            the image bytes, exactly as downloaded
///   .imgcache.index        CacheEntryMetadata records, one JSON object per line (CacheIndexFile)
///   .imgcache.lookup       where each record is in the index, by name (CacheLookupTable)
///   .imgcache.lock         flock'ed by writers
///   .<name>.tmp-<pid>-<n>  writes in progress (or left by a killed process; `prune` removes them)
/// ```
/// With fan-out naming the image and its temporary files sit in the two-hex-digit subfolder
/// (`3f/3f2a…c1.png`).
///
/// ## Consistency
/// - Every image is written to a file without its name (an unnamed `O_TMPFILE` on Linux, a hidden
///   temporary file elsewhere) in its own folder, then linked or renamed to its name in one step
///   (`StagedImageFile`), so a reader sees a whole old file or a whole new one, never a partial
///   image.
/// - The index records each image's size, inode and modification time. An image and its record
///   are written one after the other, so they can briefly disagree (another process is between
///   the two, or was killed there); an entry whose image does not match its record is treated as
///   missing, and bytes are only served after their SHA-256 matches the record.
/// - Changes to entries, eviction, `prune` and `clear` run under an exclusive `flock` on
///   `.imgcache.lock`, so processes never evict or clear underneath each other's writes. Reads
///   take no lock (a lookup takes it only to record a refreshed fingerprint; see
///   `lookup(_:now:)`).
///
/// Thread-safe. Every method does blocking file I/O: call it from a thread of your own or a
/// dispatch queue, not from the Swift concurrency cooperative pool.
public final class ImageCacheStore: Sendable {
    /// The cache folder.
    public let directory: String
    /// How URLs map to file names.
    public let naming: LocalImageNaming
    /// Freshness and size limits.
    package let policy: CachePolicy

    /// `markUsed` records no use of an entry whose recorded last use is more recent than this:
    /// LRU order does not need finer grain, and a page showing the same image many times should
    /// not append a record each time.
    static let lastUseGranularity: TimeInterval = 60
    /// How old a temporary file must be before `prune` takes it for debris of a killed process
    /// rather than a write in progress.
    static let abandonedTemporaryFileAge: TimeInterval = 60 * 60

    let layout: CacheFileLayout
    let reader: CacheEntryReader
    /// How images are staged before they take their names here.
    let staging = StagedImageFile.Support()
    private let state: ThreadLocked<State>
    private let removalsSeen: ThreadLocked<Int>
    /// Its own lock, so that an answer from memory never waits for a batch being written.
    private let recent = ThreadLocked(RecentAnswers())

    /// The index as this process last read it, and the means to change the folder.
    private struct State {
        let folderLock: CacheFolderLock
        let indexFile: CacheIndexFile
        var index = CacheIndex()
        /// How many more looks may go through the lookup table before the index is read. A run
        /// of a page looks a few times (names, records, uses); a store that keeps looking (an app
        /// asking image by image) is better served by reading the index once and then only what
        /// is appended, than by reading the table and the index's last lines at every look.
        var lookupTableLooksLeft = 4
        /// How many times one document looks in the cache: once for its names and stored
        /// entries, once more for the uses it records.
        static let looksPerDocument = 2
        /// The index's ``CacheIndex/removals``, published each time the index is brought up to
        /// date or changed, for ``recentAnswers(for:now:)``.
        let removalsSeen: ThreadLocked<Int>

        /// Whether the next look may go through the lookup table; counts it.
        mutating func mayLookThroughTable() -> Bool {
            guard !indexFile.hasBeenRead, lookupTableLooksLeft > 0 else { return false }
            lookupTableLooksLeft -= 1
            return true
        }

        /// Applies what other processes (and other stores on the folder) recorded since the last look.
        mutating func catchUp() {
            switch indexFile.readUpdates() {
            case .unchanged:
                break
            case .appended(let records):
                index.apply(records)
            case .replaced(let records):
                var replacement = CacheIndex()
                replacement.apply(records)
                replacement.succeed(index)
                index = replacement
            }
            removalsSeen.withLock { $0 = index.removals }
        }
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
        // Its own lock, so that reading it never waits for a batch of images being written.
        let removalsSeen = ThreadLocked(0)
        self.removalsSeen = removalsSeen
        self.state = ThreadLocked(State(
            folderLock: CacheFolderLock(path: layout.lockPath),
            indexFile: CacheIndexFile(path: layout.indexPath),
            removalsSeen: removalsSeen
        ))
    }

    // MARK: Paths

    /// Where the image for `url` is (or would be) stored, or nil when the URL cannot be cached
    /// (not http(s), or no enabled image extension). The file may not exist.
    package func path(for url: BrowserURL) -> String? {
        localName(for: url).map(layout.imagePath)
    }

    /// Where the image for `url` is (or would be) stored, as a file URL, or nil when the URL cannot
    /// be cached (not http(s), or no enabled image extension). The file may not exist.
    public func fileURL(for url: BrowserURL) -> URL? {
        path(for: url).map { URL(fileURLWithPath: $0) }
    }

    /// Where the image with this local name is stored, or nil when `localName` is not a name this
    /// cache could have written (such as a path with `..`).
    package func path(forLocalName localName: String) -> String? {
        CacheFileLayout.isValidLocalName(localName) ? layout.imagePath(localName) : nil
    }

    /// The file name of `url`'s image: the naming's, from the URL's extension; for a URL that
    /// names no image format, the name its bytes gave it when it was stored (the index records
    /// it), or nil when it is not cached. A name with an extension the folder scan would not
    /// recognise (say, non-ASCII) is refused rather than stored where `clear` and `prune` could
    /// never find it.
    package func localName(for url: BrowserURL) -> String? {
        localNames(for: [url])[0]
    }

    /// ``localName(for:)`` of each URL, with one look at the index (or its lookup table) for
    /// all the URLs whose names come from their bytes.
    package func localNames(for urls: [BrowserURL]) -> [String?] {
        localNames(for: urls.map { ImageToFetch($0) })
    }

    /// ``localName(for:)`` of each image, taking the name its URL gives it from `urlName` where
    /// the caller has it.
    package func localNames(for images: [ImageToFetch]) -> [String?] {
        var names = [String?](repeating: nil, count: images.count)
        var byBytes: [Int] = []
        for (position, image) in images.enumerated() {
            let url = image.url
            if let name = image.urlName ?? naming.localName(for: url) {
                names[position] = CacheFileLayout.isValidLocalName(name) ? name : nil
            } else if url.isHTTP {
                byBytes.append(position)
            }
        }
        guard !byBytes.isEmpty else { return names }
        let keys = byBytes.map { images[$0].url.serializedWithoutFragment }
        state.withLock { state in
            if state.mayLookThroughTable() {
                // Such a URL's name is SHA-256(url) plus its format's extension: one of a few
                // names to look up, whichever records this URL.
                let candidates = byBytes.map { position in
                    ImageFormat.allCases.compactMap { naming.localName(for: images[position].url, format: $0) }
                }
                if let probe = CacheIndexProbe(localNames: candidates.flatMap { $0 }, layout: layout) {
                    var found = probe.metadata[...]
                    for (index, position) in byBytes.enumerated() {
                        let recorded = found.prefix(candidates[index].count).compactMap { $0 }.filter { $0.url == keys[index] }
                        found = found.dropFirst(candidates[index].count)
                        // One name per URL is kept (a new one replaces the old); the newest, should two be seen.
                        names[position] = recorded.max { $0.fetchedAt < $1.fetchedAt }?.localName
                    }
                    return
                }
            }
            state.catchUp()
            for (index, position) in byBytes.enumerated() { names[position] = state.index.name(forURL: keys[index]) }
        }
        return names
    }

    /// The name `bytes` are stored under for `url`: the naming's, or for a URL whose path names no
    /// kind of file (``LocalImageNaming/PathKind/untyped``), `SHA-256(url).<the bytes' format>`
    /// (nil when they are no image format, or the path names another kind).
    func storageName(for url: BrowserURL, bytes: [UInt8], format known: ImageFormat? = nil, urlName: String? = nil) -> String? {
        var name = urlName ?? naming.localName(for: url)
        if name == nil, url.isHTTP, naming.pathKind(ofHTTPURL: url.serialized) == .untyped, let format = known ?? ImageFormat.detect(bytes) {
            name = naming.localName(for: url, format: format)
        }
        return name.flatMap { CacheFileLayout.isValidLocalName($0) ? $0 : nil }
    }

    // MARK: Reading

    /// Whether `url`'s image is cached, and whether it is fresh.
    ///
    /// Reads the index (only what was appended since the last call) and `stat`s the image; does
    /// not read or hash the image. When the image's size still matches but its inode or
    /// modification time changed (the folder was copied, for example), the bytes are hashed once
    /// and, if they still match, the new fingerprint is recorded so the next lookup is cheap again.
    /// - Returns: `.missing` when there is no record or no image, or they do not match.
    package func lookup(_ url: BrowserURL, now: Date = Date()) -> CacheLookup {
        guard let localName = localName(for: url) else { return .missing }
        return lookup(localName: localName, url: url.serializedWithoutFragment, recorded: metadata(for: localName), now: now)
    }

    /// `lookup(_:now:)` for an entry whose record was already read.
    package func lookup(localName: String, url: String, recorded: CacheEntryMetadata?, now: Date) -> CacheLookup {
        guard let metadata = intactMetadata(recorded, url: url) else { return .missing }
        return policy.isStale(fetchedAt: metadata.fetchedAt, now: now) ? .stale(metadata) : .fresh(metadata)
    }

    /// The image cached for `url`, when there is one and its file is there and the size it was
    /// (its bytes are not read): what a listing or an app's cache view shows.
    public func cachedImage(for url: BrowserURL) -> CachedImage? {
        lookup(url).metadata.map(CachedImage.init)
    }

    /// The cached bytes of `url`'s image and what the cache knows of it, after checking the bytes'
    /// SHA-256; nil when not cached or not intact. Freshness is not considered.
    public func contents(for url: BrowserURL) -> (bytes: [UInt8], image: CachedImage)? {
        entry(for: url).map { ($0.bytes, CachedImage($0.metadata)) }
    }

    /// ``contents(for:)`` with the index record.
    func entry(for url: BrowserURL) -> (bytes: [UInt8], metadata: CacheEntryMetadata)? {
        guard let localName = localName(for: url),
              let metadata = metadata(for: localName),
              metadata.url == url.serializedWithoutFragment,
              let file = reader.verifiedBytes(of: metadata) else { return nil }
        return (file.bytes, metadata)
    }

    /// The cached bytes and what the cache knows of the image for a local name such as `3f2a….png` (what a page rewritten
    /// to use this cache refers to), after checking their SHA-256; nil when the name is not one
    /// this cache writes (anything with `..`, a leading `/`, other folders), or the entry is
    /// absent or not intact. Safe to call with a name taken from a request.
    public func contents(forLocalName localName: String) -> (bytes: [UInt8], image: CachedImage)? {
        entry(forLocalName: localName).map { ($0.bytes, CachedImage($0.metadata)) }
    }

    /// ``contents(forLocalName:)`` with the index record.
    func entry(forLocalName localName: String) -> (bytes: [UInt8], metadata: CacheEntryMetadata)? {
        guard CacheFileLayout.isValidLocalName(localName),
              let metadata = metadata(for: localName),
              let file = reader.verifiedBytes(of: metadata) else { return nil }
        return (file.bytes, metadata)
    }

    /// What the index records about `localName` (not yet checked against the image file).
    func metadata(for localName: String) -> CacheEntryMetadata? {
        metadata(forLocalNames: [localName])[0]
    }

    /// What the index records about each of `localNames` (nil for a nil name), current, read
    /// under one hold of the mutex: what a page's lookups need, without reading every entry.
    ///
    /// For the first few looks of a store that has not read the index, that goes through the
    /// lookup table when there is a usable one (``CacheIndexProbe``): a warm run then reads the
    /// records it looks up, not an index of tens of megabytes. Once the index is read, it is kept up to date by
    /// reading what was appended.
    func metadata(forLocalNames localNames: [String?]) -> [CacheEntryMetadata?] {
        state.withLock { state in
            if state.mayLookThroughTable(), let probe = CacheIndexProbe(localNames: localNames, layout: layout) {
                return probe.metadata
            }
            state.catchUp()
            return localNames.map { $0.flatMap { state.index.lookUp($0) } }
        }
    }

    /// The entries among `urls` (serialized without their fragment) that this store found fresh
    /// or stored recently enough to answer for them from memory (``RecentAnswers``); nil for the
    /// others, which need a look (``lookUpForUse(_:now:)``).
    package func recentAnswers(for urls: [String], now: Date = Date()) -> [RecentAnswers.Answer?] {
        let removals = removalsSeen.withLock { $0 }
        return recent.withLock { $0.answers(for: urls, now: now, removals: removals, policy: policy) }
    }

    /// Keeps `entries`, found fresh or stored at `now`, for ``recentAnswers(for:now:)``. An entry
    /// found or stored before is still recorded while the store has seen none leave the cache
    /// since, unless another process removed it since this store last looked.
    func rememberAnswers(_ entries: some Sequence<CacheEntryMetadata>, at now: Date) {
        let removals = removalsSeen.withLock { $0 }
        recent.withLock { $0.remember(entries, at: now, removals: removals) }
    }

    /// The same, for the entries among `lookups` found fresh.
    func rememberAnswers(freshAmong lookups: [CacheLookup], at now: Date) {
        let removals = removalsSeen.withLock { $0 }
        recent.withLock { $0.remember(freshAmong: lookups, at: now, removals: removals) }
    }

    /// Says that `count` documents are about to look in the cache, one after another (a site's
    /// pages and stylesheets). When their looks would use up those the lookup table is worth, the
    /// next look reads the index whole at once: it would be read anyway a few documents in, and
    /// the looks through the table before would have been for nothing, a noticeable part of a
    /// warm run of a large site.
    package func expectLooks(byDocuments count: Int) {
        state.withLock { state in
            if count * State.looksPerDocument > state.lookupTableLooksLeft { state.lookupTableLooksLeft = 0 }
        }
    }

    /// Whether this store has read the index file (rather than looking entries up through the
    /// lookup table only).
    var hasReadIndex: Bool {
        state.withLock { $0.indexFile.hasBeenRead }
    }

    /// Records uses of `entries` that are still current (same URL and image file, not used at
    /// `time` or later) through the lookup table, without reading the whole index: under the
    /// folder lock, looks them up again (``CacheIndexProbe``) and appends the uses to the index
    /// file it looked at. Returns false, having done nothing, when this store has read the index
    /// already or there is no usable table; the caller then records them the usual way.
    func recordUsesThroughLookupTable(_ entries: [CacheEntryMetadata], at time: Date) -> Bool {
        state.withLock { state in
            guard state.mayLookThroughTable(), (try? state.folderLock.acquire()) != nil else { return false }
            defer { state.folderLock.release() }
            guard let probe = CacheIndexProbe(localNames: entries.map(\.localName), layout: layout) else { return false }
            let uses = zip(entries, probe.metadata).compactMap { seen, current -> CacheIndexRecord? in
                guard let current, current.url == seen.url, current.imageFile == seen.imageFile,
                      current.lastUsedAt < time else { return nil }
                return .used(localName: seen.localName, at: time)
            }
            // Best effort, as a use recorded the usual way: a use that is not recorded only makes
            // the entry look older to eviction.
            try? CacheIndexFile.append(uses, toFileAt: layout.indexPath, expecting: probe.indexFile,
                                       durable: policy.durableWrites)
            return true
        }
    }

    /// A summary of every entry the index records, current, without reading whole records.
    func recordedSummaries() -> [CacheIndex.Summary] {
        state.withLock { state in
            state.catchUp()
            return state.index.summaries()
        }
    }

    /// Every entry the index records, current (each read whole: slow on a big cache).
    func recordedEntries() -> [String: CacheEntryMetadata] {
        state.withLock { state in
            state.catchUp()
            return state.index.allEntries()
        }
    }

    /// The metadata of an entry that passes the fingerprint check, re-checking by hash (and
    /// recording the new fingerprint) when only the inode or modification time changed.
    func intactMetadata(_ recorded: CacheEntryMetadata?, url: String?) -> CacheEntryMetadata? {
        switch reader.inspect(recorded, expectedURL: url) {
        case .unusable:
            return nil
        case .intact(let metadata):
            return metadata
        case .fingerprintChanged(let metadata):
            guard let file = reader.verifiedBytes(of: metadata) else { return nil }
            var refreshed = metadata
            refreshed.imageFile = file.status.fingerprint
            // Best effort (the folder may be read-only, say inside an app bundle).
            try? withExclusiveAccess { session in
                // Only if nobody changed the entry while we were hashing it.
                guard session.index[metadata.localName] == metadata,
                      let now = CacheFileSystem.status(ofPath: layout.imagePath(metadata.localName)),
                      now.isSameFile(as: file.status), now.fingerprint == file.status.fingerprint else { return }
                try session.record([.entry(refreshed)])
            }
            return refreshed
        }
    }

    // MARK: Exclusive sections

    /// Runs `body` holding this store's mutex and the folder's `flock`, with the index brought up
    /// to date first.
    func withExclusiveAccess<Result>(_ body: (inout CacheFolderSession) throws -> Result) throws -> Result {
        try state.withLock { state in
            try state.folderLock.acquire()
            defer { state.folderLock.release() }
            state.catchUp()
            // The session takes the index rather than sharing it: a shared dictionary would be
            // copied whole by the session's first change (copy on write), once per stored image.
            var session = CacheFolderSession(layout: layout, file: state.indexFile, durable: policy.durableWrites,
                                             index: state.index)
            state.index = CacheIndex()
            defer {
                state.index = session.index
                state.removalsSeen.withLock { $0 = session.index.removals }
            }
            let result = try body(&session)
            session.compactIfLarge()
            session.updateLookupTableIfBehind()
            return result
        }
    }
}
