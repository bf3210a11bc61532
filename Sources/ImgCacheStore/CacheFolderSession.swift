/// The work done while holding the folder lock: changing entries while keeping the in-memory
/// ``CacheIndex`` and the shared ``CacheIndexFile`` in step with the files.
///
/// Files change first and the index second, so a process killed in between leaves an image the
/// index does not describe (which reads as missing, and which `prune` deletes) rather than a
/// record of an image that is not there yet.
struct CacheFolderSession {
    let layout: CacheFileLayout
    let file: CacheIndexFile
    let durable: Bool
    /// The index, current: the store reads the file's new records before handing out a session.
    var index: CacheIndex

    /// Appends records to the index file, then applies them to the in-memory index. When the
    /// append fails nothing is applied: whatever part of it reached the file is read back later.
    mutating func record(_ records: [CacheIndexRecord]) throws {
        index.apply(try file.append(records, durable: durable))
    }

    /// Deletes an entry's image and records the removal. Returns whether there was anything to delete.
    @discardableResult
    mutating func removeEntry(_ localName: String) throws -> Bool {
        guard index[localName] != nil else { return try CacheFileSystem.removeFile(at: layout.imagePath(localName)) }
        try remove([localName])
        return true
    }

    /// Removes the entries `localNames` (recorded, at least one): their removals are appended to
    /// the index first, then their images deleted. A process killed in between leaves images no
    /// record names (never served, and `prune` deletes them), never a record whose image is gone.
    /// An image that cannot be deleted (a folder shared with another user, say) makes its entry an
    /// entry again, and the first such error is thrown.
    private mutating func remove(_ localNames: [String]) throws {
        let appended = try file.append(localNames.map { .removed(localName: $0) }, durable: durable)
        var kept: [CacheEntryMetadata] = []
        var failure: (any Error)?
        for localName in localNames {
            do {
                try CacheFileSystem.removeFile(at: layout.imagePath(localName))
            } catch {
                // Still in the index held here (the removals are applied below).
                if let metadata = index.lookUp(localName) { kept.append(metadata) }
                failure = failure ?? error
            }
        }
        index.apply(appended)
        if !kept.isEmpty {
            try record(kept.map { .entry($0) })
            // They go back into the order, rebuilt when next needed.
            index.forgetEvictionOrder()
        }
        if let failure { throw failure }
    }

    /// The entry `url` had under another name than `localName`, if any: an image whose URL names
    /// no format, stored again in another format (a CDN that now answers WebP, say).
    /// Only such a URL can change names (its name comes from its bytes), so only ask for one:
    /// the first question reads every entry of the index whole.
    mutating func superseded(url: String, by localName: String) -> String? {
        index.name(forURL: url).flatMap { $0 == localName ? nil : $0 }
    }

    /// Evicts least-recently-used entries until the index is within `maxTotalBytes`, never
    /// `protected` (the entry just stored, which the caller already checked fits on its own).
    /// Their removals are recorded in one append before the images go (see
    /// ``remove(_:)``): evicting half of a 100,000-entry cache is one write to the
    /// index, not 50,000. Returns how many entries were evicted.
    @discardableResult
    mutating func evict(toFit maxTotalBytes: Int, protecting protected: String?) throws -> Int {
        var remainingBytes = index.totalBytes
        var victims: [String] = []
        var chosen = Set<String>()
        while remainingBytes > maxTotalBytes, let victim = index.popLeastRecentlyUsed(excluding: protected) {
            // The queue may hold a victim twice (stored twice at the same instant) until its
            // removal is applied.
            guard let byteCount = index.byteCount(of: victim), chosen.insert(victim).inserted else { continue }
            remainingBytes -= byteCount
            victims.append(victim)
        }
        guard !victims.isEmpty else { return 0 }
        try remove(victims)
        return victims.count
    }

    /// Replaces the index file with a snapshot once it is several times longer than one would be
    /// (records of replaced entries, uses, removals), so that it stays small to read.
    mutating func compactIfLarge() {
        let limit = max(256 * 1024, 1_200 * index.count)
        if file.length > limit { try? replaceIndex(with: index) }
    }

    /// Replaces the index file with a snapshot of `replacement` (the index itself, or what
    /// `prune` keeps of it), makes that the index held here, and writes the lookup table for it.
    mutating func replaceIndex(with replacement: CacheIndex) throws {
        let snapshot = replacement.snapshot()
        try file.replace(withLines: snapshot.lines)
        index = replacement
        guard let visited = file.visited else { return }
        index.relocate(into: visited.handle, placed: snapshot.placed)
        if let rows = index.lookupRows(in: visited.handle) { writeLookupTable(rows) }
    }

    /// Writes the lookup table afresh once the index has grown more than 1 MiB past what it
    /// covers: readers then read at most that much of the index (about 2,000 records) besides the
    /// records they look up. A table is made once per megabyte the index grows, and making one
    /// costs little beside storing the images that grew it. (A sixteenth of the index, tried
    /// first, left the readers of a big index megabytes of lines to read.)
    ///
    /// Called at the end of every session, so it costs a subtraction unless the table is behind
    /// as far as this process knows; only then is the table's header read (another process may
    /// have brought it up to date).
    func updateLookupTableIfBehind() {
        let threshold = 1 << 20
        guard let visited = file.visited, !file.lookupTableUnavailable,
              visited.readLength - file.lookupTableCoverage > threshold else { return }
        file.lookupTableCoverage = CacheLookupTable.readSource(at: layout.lookupTablePath)
            .flatMap { $0.device == visited.status.device && $0.inode == visited.status.inode ? $0.coveredLength : nil } ?? 0
        guard visited.readLength - file.lookupTableCoverage > threshold else { return }
        guard let rows = index.lookupRows(in: visited.handle) else {
            file.lookupTableUnavailable = true
            return
        }
        writeLookupTable(rows)
    }

    /// Writes the table for the index file as it is now, best effort: without one (a read-only
    /// folder, a full disk), readers read the whole index, as they always could.
    private func writeLookupTable(_ rows: [CacheLookupTable.Row]) {
        guard let visited = file.visited,
              let source = CacheLookupTable.source(of: visited.handle, status: visited.status,
                                                   coveredLength: visited.readLength) else { return }
        if (try? CacheLookupTable.write(rows, for: source, to: layout.lookupTablePath)) != nil {
            file.lookupTableCoverage = visited.readLength
        } else {
            // Not tried at every later session (a full disk): again once another file is opened.
            file.lookupTableUnavailable = true
        }
    }
}
