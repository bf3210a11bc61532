#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
        /// These records were appended since the last visit, in order.
        case appended([CacheIndexRecord])
        /// The file was replaced (or first read, or deleted): these records are the whole index.
        case replaced([CacheIndexRecord])
    }

    private let path: String
    private var descriptor: Int32 = -1
    private var openedFile: FileStatus?
    /// How far the file has been read: always just after a newline (or 0).
    private var readLength = 0

    init(path: String) {
        self.path = path
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// The file's length when last visited.
    var length: Int { openedFile?.size ?? 0 }

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
    func append(_ records: [CacheIndexRecord], durable: Bool = false) throws {
        guard !records.isEmpty else { return }
        if descriptor < 0 || !isWritable {
            // Read-only so far, or no file yet. The caller has just read the file, so when the
            // path still names it, what was read stays read.
            let (previous, previousReadLength) = (openedFile, readLength)
            closeFile()
            guard openFile(creating: true) else { throw FileError(path: path, errno: errno) }
            if let previous, let opened = openedFile, opened.isSameFile(as: previous) { readLength = previousReadLength }
        }
        var bytes: [UInt8] = []
        // A partial last line (a writer killed mid-record) is ended first, so that it stays one
        // bad line instead of swallowing the first record appended after it.
        if length > readLength { bytes.append(UInt8(ascii: "\n")) }
        for record in records { bytes += record.encoded() }
        let failure = bytes.withUnsafeBytes { CacheFileSystem.writeAll(descriptor, $0) }
        guard failure == 0 else { throw FileError(path: path, errno: failure) }
        if durable, fsync(descriptor) != 0 { throw FileError(path: path, errno: errno) }
        // Nobody else appends while we hold the lock, so what we wrote needs no reading back.
        openedFile = CacheFileSystem.status(ofDescriptor: descriptor) ?? openedFile
        readLength = length
    }

    /// Replaces the file with one holding just `records` (a snapshot of the index, or nothing for
    /// a cleared cache). Call with the folder lock held.
    func replace(with records: [CacheIndexRecord]) throws {
        var bytes: [UInt8] = []
        for record in records { bytes += record.encoded() }
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
        descriptor = open(path, O_RDWR | O_APPEND | flags | (creating ? O_CREAT : 0), 0o644)
        isWritable = descriptor >= 0
        if descriptor < 0 { descriptor = open(path, O_RDONLY | flags) }
        guard descriptor >= 0, let status = CacheFileSystem.status(ofDescriptor: descriptor) else {
            closeFile()
            return false
        }
        openedFile = status
        readLength = 0
        return true
    }

    private func closeFile() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        openedFile = nil
        isWritable = false
        readLength = 0
    }

    /// The complete lines between `start` and `end`, decoded; ``readLength`` moves past them.
    private func readLines(from start: Int, to end: Int) -> [CacheIndexRecord] {
        guard end > start else { return [] }
        var bytes = [UInt8](repeating: 0, count: end - start)
        var count = 0
        while count < bytes.count {
            let read = bytes.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress! + count, raw.count - count, off_t(start + count))
            }
            if read < 0, errno == EINTR { continue }
            guard read > 0 else { break }
            count += read
        }
        guard let lastNewline = bytes[..<count].lastIndex(of: UInt8(ascii: "\n")) else { return [] }
        readLength = start + lastNewline + 1
        return CacheIndexRecord.decodeLines(bytes[...lastNewline])
    }
}
