#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ImgCacheSupport

/// The cache folder's index file, `.imgcache.index`: an append-only log of ``CacheIndexRecord``s,
/// one per line, shared by every process that uses the folder. It holds every entry's metadata, so
/// that storing an image creates one file (the image) rather than two, and a warm run reads one
/// file rather than one per image.
///
/// - Appending happens under the folder lock, after reading what others appended, in one `write`
///   per call (`O_APPEND`), so records from different processes never interleave.
/// - Reading needs no lock. Only whole lines are taken; a line still being written is read on the
///   next visit. A line that is not a record (a process killed mid-write, a full disk) is skipped,
///   and the next appender starts on a fresh line so that the damage stays on that one line.
///   Entry records are skimmed (``SkimmedIndexEntry``) and read whole when looked up; one that
///   looks whole but then does not read makes its entry read as missing (it is fetched again),
///   where a line skipped outright leaves the entry as the record before it said.
/// - When the log grows much longer than the entries it describes, the holder of the lock
///   replaces it with a snapshot (a new file renamed into place). Other processes notice the new
///   inode and read the new file from the start.
///
/// Not thread-safe on its own; the store uses it under its mutex.
final class CacheIndexFile {
    /// What a visit to the file found.
    enum Update {
        /// Nothing new since the last visit.
        case unchanged
        /// These lines were appended since the last visit, in order.
        case appended([CacheIndexLine])
        /// The file was replaced (or first read, or deleted): these lines are the whole index.
        case replaced([CacheIndexLine])
    }

    private let path: String
    /// The open file; entries skimmed from it hold it open too (``SkimmedIndexEntry``).
    private var handle: CacheIndexFileHandle?
    private var descriptor: Int32 { handle?.descriptor ?? -1 }
    private var openedFile: FileStatus?
    /// How far the file has been read: always just after a newline (or 0).
    private var readLength = 0

    init(path: String) {
        self.path = path
    }

    /// The file's length when last visited.
    var length: Int { openedFile?.size ?? 0 }

    /// How far the lookup table covers the file open now, as this process last read or wrote it
    /// (another process may since have written a newer one).
    var lookupTableCoverage = 0
    /// Whether the index held in memory could not give the lookup table for the file open now
    /// (an entry not from one of its lines): not tried again until another file is opened.
    var lookupTableUnavailable = false

    /// Whether the file has been read since this value was made (or since it was closed).
    var hasBeenRead: Bool { handle != nil }

    /// The file as last visited, open, its status, and how far its lines were read: what the
    /// lookup table is made from.
    var visited: (handle: CacheIndexFileHandle, status: FileStatus, readLength: Int)? {
        guard let handle, let openedFile else { return nil }
        return (handle, openedFile, readLength)
    }

    /// Reads whatever changed since the last visit: one `stat` when nothing did.
    func readUpdates() -> Update {
        guard let onDisk = CacheFileSystem.status(ofPath: path), onDisk.isRegularFile else {
            // No index (never written, or the folder was deleted): no entries.
            closeFile()
            return .replaced([])
        }
        if descriptor >= 0, let opened = openedFile, onDisk.isSameFile(as: opened), onDisk.size >= readLength {
            openedFile = onDisk
            guard onDisk.size > readLength else { return .unchanged }
            return .appended(readLines(from: readLength, to: onDisk.size))
        }
        // First visit, or the file was replaced (or truncated, which only someone else's tool does).
        closeFile()
        guard openFile() else { return .replaced([]) }
        return .replaced(readLines(from: 0, to: openedFile?.size ?? 0))
    }

    /// Appends records in one `write`. Call with the folder lock held, right after ``readUpdates()``.
    /// With `durable`, the file is flushed to disk before returning.
    /// - Returns: the records as the index is to hold them: entries as lines of the file, which
    ///   is where their metadata lives from now on (a cold run storing 10,000 images kept
    ///   10,000 records in memory), other records as they are.
    @discardableResult
    func append(_ records: [CacheIndexRecord], durable: Bool = false) throws -> [CacheIndexLine] {
        guard !records.isEmpty else { return [] }
        if descriptor < 0 || !isWritable {
            // Read-only so far, or no file yet. The caller has just read the file, so when the
            // path still names it, what was read stays read.
            let (previous, previousReadLength) = (openedFile, readLength)
            closeFile()
            guard openFile(creating: true) else { throw FileError(path: path, errno: errno) }
            if let previous, let opened = openedFile, opened.isSameFile(as: previous) { readLength = previousReadLength }
        }
        // A partial last line (a writer killed mid-record) is ended first, so that it stays one
        // bad line instead of swallowing the first record appended after it.
        let (bytes, lineStarts) = try Self.write(records, to: descriptor, endingALine: length > readLength,
                                                 path: path, durable: durable)
        // Nobody else appends while we hold the lock, so what we wrote needs no reading back.
        guard let written = CacheFileSystem.status(ofDescriptor: descriptor), let handle else {
            return records.map(CacheIndexLine.record)
        }
        openedFile = written
        readLength = length
        let start = written.size - bytes.count
        return records.indices.map { position in
            guard case .entry(let metadata) = records[position] else { return .record(records[position]) }
            let end = position + 1 < records.count ? lineStarts[position + 1] : bytes.count
            return .skimmedEntry(SkimmedIndexEntry(
                localName: metadata.localName, byteCount: metadata.byteCount, fetchedAt: metadata.fetchedAt,
                lastUsedAt: metadata.lastUsedAt, imageFile: metadata.imageFile, usedSince: false,
                file: handle, offset: start + lineStarts[position], length: end - lineStarts[position] - 1))
        }
    }

    /// Appends records to the index file at `path` without reading it, in one `write`, when it is
    /// still the file `expected` describes (otherwise appends nothing). Call with the folder lock
    /// held: what uses recorded through the lookup table take, where the index was not read.
    /// A partial last line is ended first, as ``append(_:durable:)`` does.
    static func append(_ records: [CacheIndexRecord], toFileAt path: String, expecting expected: FileStatus,
                       durable: Bool) throws {
        guard !records.isEmpty else { return }
        let descriptor = open(path, O_RDWR | O_APPEND | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { throw FileError(path: path, errno: errno) }
        let handle = CacheIndexFileHandle(descriptor: descriptor)
        guard let status = CacheFileSystem.status(ofDescriptor: descriptor), status.isSameFile(as: expected) else { return }
        let partialLastLine = status.size > 0 && handle.read(offset: status.size - 1, length: 1) != [UInt8(ascii: "\n")]
        try write(records, to: descriptor, endingALine: partialLastLine, path: path, durable: durable)
    }

    /// Writes `records` to the open file in one `write` (after a newline with `endingALine`),
    /// flushed to disk with `durable`. Returns the bytes written and where each record's line
    /// starts in them.
    @discardableResult
    private static func write(_ records: [CacheIndexRecord], to descriptor: Int32, endingALine: Bool, path: String,
                              durable: Bool) throws -> (bytes: [UInt8], lineStarts: [Int]) {
        var bytes: [UInt8] = endingALine ? [UInt8(ascii: "\n")] : []
        var lineStarts: [Int] = []
        lineStarts.reserveCapacity(records.count)
        for record in records {
            lineStarts.append(bytes.count)
            bytes += record.encoded()
        }
        let lengthBefore = CacheFileSystem.status(ofDescriptor: descriptor)?.size
        let failure = bytes.withUnsafeBytes { writeAll(descriptor, $0) }
        guard failure == 0 else {
            // A disk that fills up part way through leaves whole records of images the caller is
            // about to remove for want of their records: cut the file back to where it was, so
            // that the index records nothing that is not stored. (The lock is held: nobody else
            // has appended since.)
            if let lengthBefore { _ = ftruncate(descriptor, off_t(lengthBefore)) }
            throw FileError(path: path, errno: failure)
        }
        if durable, !CacheFileSystem.flushToDrive(descriptor) { throw FileError(path: path, errno: errno) }
        return (bytes, lineStarts)
    }

    /// Replaces the file with one holding just `records` (a snapshot of the index, or nothing for
    /// a cleared cache). Call with the folder lock held.
    func replace(with records: [CacheIndexRecord]) throws {
        var bytes: [UInt8] = []
        for record in records { bytes += record.encoded() }
        try replace(withLines: bytes)
    }

    /// ``replace(with:)`` with the records' lines, already encoded.
    func replace(withLines bytes: [UInt8]) throws {
        try CacheFileSystem.replaceFile(at: path, with: bytes, durable: false)
        closeFile()
        guard openFile() else { throw FileError(path: path, errno: errno) }
        readLength = length
    }


    // MARK: File handling

    private var isWritable = false

    /// Opens the file the path names now, for appending when allowed (a cache folder in an app
    /// bundle is read-only, and still readable).
    private func openFile(creating: Bool = false) -> Bool {
        let flags = O_CLOEXEC | O_NOFOLLOW
        var descriptor = open(path, O_RDWR | O_APPEND | flags | (creating ? O_CREAT : 0), 0o644)
        isWritable = descriptor >= 0
        if descriptor < 0 { descriptor = open(path, O_RDONLY | flags) }
        guard descriptor >= 0 else { return false }
        handle = CacheIndexFileHandle(descriptor: descriptor)
        guard let status = CacheFileSystem.status(ofDescriptor: descriptor) else {
            closeFile()
            return false
        }
        openedFile = status
        readLength = 0
        return true
    }

    private func closeFile() {
        handle = nil
        openedFile = nil
        isWritable = false
        readLength = 0
        lookupTableCoverage = 0
        lookupTableUnavailable = false
    }

    /// The complete lines between `start` and `end`: entry records skimmed where they can be,
    /// other records decoded, lines that are neither left out; ``readLength`` moves past them.
    ///
    /// Read a megabyte at a time into one buffer: a big index runs to tens of megabytes, and a
    /// buffer that size cost more in page faults and zeroing than reading its lines did.
    private func readLines(from start: Int, to end: Int) -> [CacheIndexLine] {
        guard let handle else { return [] }
        return Self.readLines(of: handle, from: start, to: end, readLength: &readLength)
    }

    /// ``readLines(from:to:)`` of any open index file; `readLength` moves past the lines read.
    static func readLines(of handle: CacheIndexFileHandle, from start: Int, to end: Int,
                          readLength: inout Int) -> [CacheIndexLine] {
        guard end > start else { return [] }
        var lines: [CacheIndexLine] = []
        lines.reserveCapacity((end - start) / 400)
        var buffer = [UInt8](repeating: 0, count: min(Self.readChunk, end - start))
        var bufferOffset = start    // the file offset of buffer[0]
        var filled = 0              // bytes in the buffer: the start of an unfinished line, then what was read
        while bufferOffset + filled < end {
            if filled == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }  // a line longer than the buffer
            let wanted = min(buffer.count - filled, end - bufferOffset - filled)
            let read = buffer.withUnsafeMutableBytes { raw in
                pread(handle.descriptor, raw.baseAddress! + filled, wanted, off_t(bufferOffset + filled))
            }
            if read < 0, errno == EINTR { continue }
            guard read > 0 else { break }
            filled += read
            guard let lastNewline = buffer[..<filled].lastIndex(of: UInt8(ascii: "\n")) else { continue }
            parseLines(buffer[...lastNewline], fileOffset: bufferOffset, file: handle, into: &lines)
            readLength = bufferOffset + lastNewline + 1
            // The unfinished line moves to the front.
            let rest = filled - (lastNewline + 1)
            buffer.withUnsafeMutableBytes { raw in
                _ = memmove(raw.baseAddress!, raw.baseAddress! + lastNewline + 1, rest)
            }
            bufferOffset += lastNewline + 1
            filled = rest
        }
        return lines
    }

    private static let readChunk = 1 << 20

    /// The lines of `bytes` (which ends with a newline) into `lines`; `fileOffset` is where
    /// `bytes` starts in the file.
    private static func parseLines(_ bytes: ArraySlice<UInt8>, fileOffset: Int, file: CacheIndexFileHandle,
                                   into lines: inout [CacheIndexLine]) {
        let newline = Int32(UInt8(ascii: "\n"))
        bytes.withUnsafeBufferPointer { (buffer: UnsafeBufferPointer<UInt8>) -> Void in
            let base = buffer.baseAddress!
            var lineStart = 0
            while lineStart < buffer.count {
                let found = memchr(base + lineStart, newline, buffer.count - lineStart)!
                let lineEnd = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base
                defer { lineStart = lineEnd + 1 }
                guard lineEnd > lineStart else { continue }
                let line = UnsafeBufferPointer(rebasing: buffer[lineStart..<lineEnd])
                if let entry = SkimmedIndexEntry.skim(line, file: file, offset: fileOffset + lineStart) {
                    lines.append(.skimmedEntry(entry))
                } else {
                    let first = bytes.startIndex + lineStart
                    if let record = CacheIndexRecord.decode(bytes[first..<(first + lineEnd - lineStart)]) {
                        lines.append(.record(record))
                    }
                }
            }
        }
    }
}

/// One line of the index as read: an entry record skimmed (``SkimmedIndexEntry``), or any
/// record read whole.
enum CacheIndexLine {
    case skimmedEntry(SkimmedIndexEntry)
    case record(CacheIndexRecord)
}
