import Foundation

/// What the cache folder's index says, in memory: each entry's metadata, the image bytes they add
/// up to, and which was used longest ago. Built by applying the lines of `.imgcache.index` in the
/// order they were appended, so every process that reads the file agrees on it.
///
/// Entry records come skimmed (``SkimmedIndexEntry``: name, size, last use) and are read whole
/// when looked up, so that a run that looks at a few entries of a big cache does not read them
/// all. What needs every entry (``allEntries()``, ``name(forURL:)``) reads them all once.
struct CacheIndex {
    /// An entry as known so far.
    private enum Slot {
        /// Read whole; `line` is where it was read from when that was a skimmed line (the lookup
        /// table needs every entry's place in the file). Boxed: few entries of a big index are
        /// read whole, and a slot is as large as its largest case (both inline made a big index's
        /// slots take much more memory, and every pass over them slower).
        indirect case decoded(CacheEntryMetadata, line: SkimmedIndexEntry?)
        case skimmed(SkimmedIndexEntry)

        var byteCount: Int {
            switch self {
            case .decoded(let metadata, _): metadata.byteCount
            case .skimmed(let entry): entry.byteCount
            }
        }

        var lastUsedAt: Date {
            switch self {
            case .decoded(let metadata, _): metadata.lastUsedAt
            case .skimmed(let entry): entry.lastUsedAt
            }
        }

        var metadata: CacheEntryMetadata? {
            switch self {
            case .decoded(let metadata, _): metadata
            case .skimmed(let entry): entry.metadata()
            }
        }

        /// Where the entry's record is, if it was read from a file.
        var line: SkimmedIndexEntry? {
            switch self {
            case .decoded(_, let line): line
            case .skimmed(let entry): entry
            }
        }

        var fetchedAt: Date {
            switch self {
            case .decoded(let metadata, _): metadata.fetchedAt
            case .skimmed(let entry): entry.fetchedAt
            }
        }

        var imageFile: ImageFileFingerprint {
            switch self {
            case .decoded(let metadata, _): metadata.imageFile
            case .skimmed(let entry): entry.imageFile
            }
        }
    }

    private var slots: [String: Slot] = [:]
    /// Each entry's local name by its URL: how an image whose URL names no format (its name comes
    /// from its bytes) is found again, by this process or another. Built the first time it is
    /// needed (every entry is then read whole, and kept so); nil until then.
    private var namesByURL: [String: String]?
    /// The image bytes of all entries.
    private(set) var totalBytes = 0
    /// How many entries have left the index as this process saw it (removed, evicted, or gone
    /// with an index replaced whole), counted on across replacements (``succeed(_:)``): what
    /// tells whoever remembers entries that one of them may be gone.
    private(set) var removals = 0
    /// The entries in eviction order, built the first time eviction needs it and kept in step
    /// from then on: most runs never evict, and should not pay for it.
    private var evictionQueue: EvictionQueue?

    /// How many entries the index holds.
    var count: Int { slots.count }

    /// Takes the place of `replaced`: its ``removals`` go on, with one more for the replacement,
    /// since entries of `replaced` may be missing here.
    mutating func succeed(_ replaced: CacheIndex) {
        removals = replaced.removals + 1
    }

    /// Every entry's local name.
    package var localNames: some Collection<String> { slots.keys }

    /// The entry's metadata (read whole if it was skimmed; nil if its line does not read).
    subscript(localName: String) -> CacheEntryMetadata? { slots[localName]?.metadata }

    /// The entry's metadata, as the subscript gives it, and a skimmed entry read whole is kept
    /// whole: the pages of a site name the same images again and again, and each look-up of a
    /// skimmed entry read its line from the file and decoded it (thousands of times over a site).
    mutating func lookUp(_ localName: String) -> CacheEntryMetadata? {
        // The name hashed once for an entry read before, not twice.
        guard let slot = slots[localName] else { return nil }
        guard case .skimmed(let entry) = slot else { return slot.metadata }
        guard let metadata = entry.metadata() else { return nil }
        slots[localName] = .decoded(metadata, line: entry)
        return metadata
    }

    /// When the entry was last used, without reading its whole record.
    func lastUse(of localName: String) -> Date? { slots[localName]?.lastUsedAt }

    /// The entry's image size, without reading its whole record.
    func byteCount(of localName: String) -> Int? { slots[localName]?.byteCount }

    // MARK: Applying lines

    /// Applies the lines read from the file, in order.
    mutating func apply(_ lines: [CacheIndexLine]) {
        // A whole index read at once (the first look, or a replaced file): room for every entry
        // up front, rather than growing and rehashing a 100,000-entry dictionary step by step.
        if slots.isEmpty { slots.reserveCapacity(lines.count) }
        for line in lines {
            switch line {
            case .record(let record): apply(record)
            case .skimmedEntry(let entry): apply(entry)
            }
        }
    }

    /// Applies records, in order.
    mutating func apply(_ records: [CacheIndexRecord]) {
        for record in records { apply(record) }
    }

    /// Applies one record, replacing what was known about its entry.
    mutating func apply(_ record: CacheIndexRecord) {
        switch record {
        case .entry(let metadata):
            let previous = slots.updateValue(.decoded(metadata, line: nil), forKey: metadata.localName)
            totalBytes += metadata.byteCount - (previous?.byteCount ?? 0)
            if namesByURL != nil {
                if case .decoded(let old, _)? = previous, old.url != metadata.url { forgetName(of: old) }
                namesByURL?[metadata.url] = metadata.localName
            }
            evictionQueue?.push(EvictionQueue.Item(lastUsedAt: metadata.lastUsedAt, localName: metadata.localName))
        case .used(let localName, let at):
            switch slots[localName] {
            case .decoded(var metadata, let line)?:
                metadata.lastUsedAt = at
                slots[localName] = .decoded(metadata, line: line)
            case .skimmed(var entry)?:
                entry.lastUsedAt = at
                entry.usedSince = true
                slots[localName] = .skimmed(entry)
            case nil:
                return
            }
            evictionQueue?.push(EvictionQueue.Item(lastUsedAt: at, localName: localName))
        case .removed(let localName):
            if let previous = slots.removeValue(forKey: localName) {
                removals += 1
                totalBytes -= previous.byteCount
                if case .decoded(let old, _) = previous { forgetName(of: old) }
            }
        }
    }

    /// Applies a skimmed entry record: as a whole one once every entry is kept whole.
    private mutating func apply(_ entry: SkimmedIndexEntry) {
        if namesByURL != nil, let metadata = entry.metadata() {
            apply(.entry(metadata))
            if case .decoded(let metadata, nil)? = slots[entry.localName] {
                slots[entry.localName] = .decoded(metadata, line: entry)
            }
            return
        }
        let previous = slots.updateValue(.skimmed(entry), forKey: entry.localName)
        totalBytes += entry.byteCount - (previous?.byteCount ?? 0)
        // A line that looked whole but does not read (only then is a URL's name known here).
        if case .decoded(let old, _)? = previous { forgetName(of: old) }
        evictionQueue?.push(EvictionQueue.Item(lastUsedAt: entry.lastUsedAt, localName: entry.localName))
    }

    private mutating func forgetName(of entry: CacheEntryMetadata) {
        if namesByURL?[entry.url] == entry.localName { namesByURL?[entry.url] = nil }
    }

    // MARK: Reading every entry

    /// What ``ImageCacheStore/stats()`` needs of an entry, which a skimmed record has.
    struct Summary {
        let localName: String
        let byteCount: Int
        let fetchedAt: Date
        let imageFile: ImageFileFingerprint
    }

    /// Every entry's summary, without reading whole records.
    func summaries() -> [Summary] {
        slots.map { name, slot in
            switch slot {
            case .decoded(let metadata, _):
                Summary(localName: name, byteCount: metadata.byteCount, fetchedAt: metadata.fetchedAt, imageFile: metadata.imageFile)
            case .skimmed(let entry):
                Summary(localName: name, byteCount: entry.byteCount, fetchedAt: entry.fetchedAt, imageFile: entry.imageFile)
            }
        }
    }

    /// Every entry, read whole (and kept so).
    mutating func allEntries() -> [String: CacheEntryMetadata] {
        decodeAll()
        var entries: [String: CacheEntryMetadata] = [:]
        entries.reserveCapacity(slots.count)
        for (name, slot) in slots {
            if case .decoded(let metadata, _) = slot { entries[name] = metadata }
        }
        return entries
    }

    /// The local name of `url`'s entry, if any.
    mutating func name(forURL url: String) -> String? {
        if namesByURL == nil {
            decodeAll()
            var names: [String: String] = [:]
            names.reserveCapacity(slots.count)
            for slot in slots.values {
                if case .decoded(let metadata, _) = slot { names[metadata.url] = metadata.localName }
            }
            namesByURL = names
        }
        return namesByURL?[url]
    }

    /// Reads every skimmed entry whole, with one read of each file they came from.
    private mutating func decodeAll() {
        var pending: [ObjectIdentifier: (file: CacheIndexFileHandle, entries: [SkimmedIndexEntry])] = [:]
        for slot in slots.values {
            guard case .skimmed(let entry) = slot else { continue }
            pending[ObjectIdentifier(entry.file), default: (entry.file, [])].entries.append(entry)
        }
        for (file, entries) in pending.values {
            let start = entries.lazy.map(\.offset).min()!
            let end = entries.lazy.map { $0.offset + $0.length }.max()!
            let bytes = file.read(offset: start, length: end - start)
            for entry in entries {
                let line = bytes.map { $0[(entry.offset - start)..<(entry.offset - start + entry.length)] }
                // One that does not read stays skimmed, and reads as missing.
                if let metadata = line.flatMap(entry.metadata(inLine:)) { slots[entry.localName] = .decoded(metadata, line: entry) }
            }
        }
    }

    // MARK: Eviction

    /// Takes the entry used longest ago, other than `protected` (the one being stored), out of
    /// the eviction order; the caller removes it. Ties go to the smaller name so that every
    /// process picks the same victim. Nil when there is no other entry.
    mutating func popLeastRecentlyUsed(excluding protected: String?) -> String? {
        // Rebuilt when stale pairs (uses, replaced and removed entries) outnumber the entries.
        if evictionQueue == nil || evictionQueue!.count > 2 * slots.count + 1_024 {
            evictionQueue = EvictionQueue(slots.lazy.map { EvictionQueue.Item(lastUsedAt: $0.value.lastUsedAt, localName: $0.key) })
        }
        let slots = self.slots
        return evictionQueue!.popLeastRecentlyUsed(excluding: protected) { slots[$0]?.lastUsedAt }
    }

    /// Drops the eviction order (to be rebuilt when next needed): after an entry was taken out of
    /// it but not removed.
    mutating func forgetEvictionOrder() {
        evictionQueue = nil
    }

    /// Every entry's place in the index file open as `file`, as the lookup table holds it; nil
    /// when an entry's record is not a line of that file (one read whole from an unusual line,
    /// or from a file since replaced), which the table could not point at.
    func lookupRows(in file: CacheIndexFileHandle) -> [CacheLookupTable.Row]? {
        var rows: [CacheLookupTable.Row] = []
        rows.reserveCapacity(slots.count)
        for (name, slot) in slots {
            guard let line = slot.line, line.file === file else { return nil }
            rows.append(CacheLookupTable.Row(nameHash: CacheLookupTable.nameHash(name), offset: line.offset,
                                             length: line.length, lastUsedAt: slot.lastUsedAt.timeIntervalSince1970))
        }
        return rows
    }

    /// The whole index as a compacted file holds it, one line per entry: the lines of skimmed
    /// entries copied as they were (in the order the file had them, and written again only when
    /// a later use changed them), then the other entries in name order; and where each entry's
    /// line is in them.
    ///
    /// Copied rather than read and written again: compacting a big index that way was slow and
    /// took several times the index's size in memory.
    func snapshot() -> (lines: [UInt8], placed: [PlacedLine]) {
        var skimmed: [SkimmedIndexEntry] = []
        var decoded: [CacheEntryMetadata] = []
        for slot in slots.values {
            switch slot {
            case .skimmed(let entry): skimmed.append(entry)
            case .decoded(let metadata, _): decoded.append(metadata)
            }
        }
        var bytes: [UInt8] = []
        var placed: [PlacedLine] = []
        placed.reserveCapacity(slots.count)
        bytes.reserveCapacity(skimmed.reduce(0) { $0 + $1.length + 1 } + decoded.count * 512)
        skimmed.sort { (ObjectIdentifier($0.file), $0.offset) < (ObjectIdentifier($1.file), $1.offset) }
        var window: (file: CacheIndexFileHandle, offset: Int, bytes: [UInt8])?
        for entry in skimmed {
            if window == nil || window!.file !== entry.file || entry.offset < window!.offset
                || entry.offset + entry.length > window!.offset + window!.bytes.count {
                // The next megabyte (or the whole line) from where this line starts.
                window = (entry.file, entry.offset, entry.file.read(offset: entry.offset, upTo: max(1 << 20, entry.length)))
                // A file cut short by someone: the entry reads as missing anyway.
                guard window!.bytes.count >= entry.length else { continue }
            }
            let start = entry.offset - window!.offset
            let line = window!.bytes[start..<(start + entry.length)]
            let lineStart = bytes.count
            if entry.usedSince {
                guard let metadata = entry.metadata(inLine: line) else { continue }
                bytes += CacheIndexRecord.entry(metadata).encoded()
            } else {
                bytes += line
                bytes.append(UInt8(ascii: "\n"))
            }
            placed.append(PlacedLine(localName: entry.localName, offset: lineStart, length: bytes.count - 1 - lineStart))
        }
        for metadata in decoded.sorted(by: { $0.localName < $1.localName }) {
            let lineStart = bytes.count
            bytes += CacheIndexRecord.entry(metadata).encoded()
            placed.append(PlacedLine(localName: metadata.localName, offset: lineStart, length: bytes.count - 1 - lineStart))
        }
        return (bytes, placed)
    }

    /// Where a ``snapshot()`` put an entry's line.
    struct PlacedLine {
        let localName: String
        let offset: Int
        let length: Int
    }

    /// Makes every entry a line of `file`, which holds this index's ``snapshot()``: after a
    /// compaction, so that the entries point into the new file (as the lookup table must), without
    /// reading it back (slow for a big index). Entries the snapshot left out (their line no
    /// longer read) are dropped, as a reader of the new file would.
    mutating func relocate(into file: CacheIndexFileHandle, placed: [PlacedLine]) {
        var relocated: [String: Slot] = [:]
        relocated.reserveCapacity(placed.count)
        var total = 0
        for line in placed {
            guard let slot = slots[line.localName] else { continue }
            relocated[line.localName] = .skimmed(SkimmedIndexEntry(
                localName: line.localName, byteCount: slot.byteCount, fetchedAt: slot.fetchedAt,
                lastUsedAt: slot.lastUsedAt, imageFile: slot.imageFile, usedSince: false,
                file: file, offset: line.offset, length: line.length))
            total += slot.byteCount
        }
        slots = relocated
        totalBytes = total
        namesByURL = nil
        evictionQueue = nil
    }
}
