/// The work done while holding the folder lock: changing entries while keeping this process's
/// ``CacheSizeIndex`` and the shared ``CacheJournal`` in step with the files.
///
/// Files change first and the journal second, so a process killed in between leaves the journal
/// short of a change rather than ahead of one: other processes then undercount the folder's size
/// for a while (until their next rebuild) instead of evicting entries that were never removed.
struct CacheFolderSession {
    let layout: CacheFileLayout
    let reader: CacheEntryReader
    let journal: CacheJournal
    /// The size index; nil for a store without a size cap, which has no use for one.
    var index: CacheSizeIndex?

    /// Brings the index up to date with what other processes did since this one last held the lock.
    mutating func catchUp() throws {
        switch try journal.readNewChanges() {
        case .changes(let changes):
            if index == nil {
                try rebuildIndex()
            } else {
                for change in changes { index?.apply(change) }
            }
        case .needsRebuild:
            try rebuildIndex()
        case .damaged:
            try rebuildIndex()
            try journal.reset()
        }
    }

    /// Replaces the index with one built by listing the folder and reading every sidecar: the
    /// authoritative (and O(entries)) way, used only when the journal cannot be followed.
    mutating func rebuildIndex() throws {
        var rebuilt = CacheSizeIndex()
        let scan = CacheDirectoryScan(layout: layout)
        for (localName, halves) in scan.entries where halves.hasImage && halves.hasMetadata {
            guard let metadata = reader.metadata(for: localName),
                  let image = CacheFileSystem.status(ofPath: layout.imagePath(localName)), image.isRegularFile
            else { continue }
            rebuilt.apply(.stored(localName: localName, byteCount: image.size,
                                  lastUsedAt: metadata.lastUsedAt.timeIntervalSince1970))
        }
        index = rebuilt
        try journal.markCaughtUp()
    }

    /// Notes that an entry was written or its last use changed.
    mutating func recordStored(_ metadata: CacheEntryMetadata) {
        record(.stored(localName: metadata.localName, byteCount: metadata.byteCount,
                       lastUsedAt: metadata.lastUsedAt.timeIntervalSince1970))
    }

    /// Deletes an entry's files and records the removal. Returns whether there was anything to delete.
    @discardableResult
    mutating func removeEntry(_ localName: String) throws -> Bool {
        let removed = try removeEntryFiles(localName)
        record(.removed(localName: localName))
        return removed
    }

    /// Deletes an entry's files without recording anything (for callers that reset the journal).
    /// The sidecar goes first: from that moment the entry reads as missing, and a process killed
    /// before the image goes leaves only an orphan image, which `prune` collects.
    func removeEntryFiles(_ localName: String) throws -> Bool {
        let hadMetadata = try CacheFileSystem.removeFile(at: layout.metadataPath(localName))
        let hadImage = try CacheFileSystem.removeFile(at: layout.imagePath(localName))
        return hadMetadata || hadImage
    }

    /// Evicts least-recently-used entries until the index is within `maxTotalBytes`, never
    /// `protected` (the entry just stored, which the caller already checked fits on its own).
    /// Returns how many entries were evicted.
    @discardableResult
    mutating func evict(toFit maxTotalBytes: Int, protecting protected: String?) throws -> Int {
        var evicted = 0
        while let total = index?.totalBytes, total > maxTotalBytes,
              let victim = index?.leastRecentlyUsed(excluding: protected) {
            try removeEntry(victim)
            evicted += 1
        }
        return evicted
    }

    /// Replaces the journal with an empty one once it is much longer than a snapshot of the index
    /// would be, so that it stays small and other processes rebuild only every few thousand changes.
    func compactJournalIfLarge() {
        guard let length = try? journal.currentLength() else { return }
        let limit = max(1 << 20, 256 * (index?.count ?? 0))
        if length > limit { try? journal.reset() }
    }

    /// Applies a change to the index and appends it to the journal. A failed append (disk full)
    /// is not worth failing the caller's operation for: the files are already right, and at worst
    /// other processes see a partial line, treat the journal as damaged and rebuild.
    private mutating func record(_ change: CacheSizeIndex.Change) {
        index?.apply(change)
        try? journal.append([change])
    }
}
