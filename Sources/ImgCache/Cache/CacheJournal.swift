#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An append-only log, `.imgcache.journal`, of every entry stored, used or removed, shared by all
/// processes that use the folder. It is how one process's ``CacheSizeIndex`` learns what the
/// others did without re-reading every sidecar: under the folder lock, a process reads the lines
/// appended since its last visit, then appends its own.
///
/// One change per line, so a reader can tell a complete record from one cut short by a killed
/// process:
///
/// ```
/// + <byteCount> <lastUsedAt, seconds since 1970> <localName>
/// - <localName>
/// ```
///
/// The journal is a hint, never the truth: whenever it cannot be followed — this process has not
/// read it yet, it was replaced or truncated, or it ends in a partial line — the index is rebuilt
/// by listing the folder. When it grows large it is replaced by an empty file (a new inode), which
/// tells every other process to rebuild once; that keeps it bounded and the rebuilds rare.
///
/// Every method must be called with the folder lock held. Not thread-safe on its own; the store
/// uses it under its mutex.
final class CacheJournal {
    /// What reading the new part of the journal found.
    enum Reading {
        /// The changes made since the last read, in order.
        case changes([CacheSizeIndex.Change])
        /// The index cannot be brought up to date from the journal: rebuild it, then call
        /// ``markCaughtUp()``.
        case needsRebuild
        /// The journal holds a damaged record: rebuild the index, then ``reset()`` the journal so
        /// that no later line is appended after the damage.
        case damaged
    }

    private let path: String
    private var descriptor: Int32 = -1
    private var openedFile: FileStatus?
    /// How much of the open file the caller's index reflects. `Int.max` when unknown, which makes
    /// the next read ask for a rebuild.
    private var appliedLength = Int.max

    init(path: String) {
        self.path = path
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// The journal's current length in bytes.
    func currentLength() throws -> Int {
        _ = try openCurrentFile()
        return try size()
    }

    /// The changes other processes appended since this one last read or wrote.
    func readNewChanges() throws -> Reading {
        _ = try openCurrentFile()
        let end = try size()
        guard appliedLength <= end else { return .needsRebuild }
        if appliedLength == end { return .changes([]) }
        var bytes = [UInt8](repeating: 0, count: end - appliedLength)
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress! + offset, raw.count - offset, off_t(appliedLength + offset))
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return .damaged }
            offset += count
        }
        guard bytes.last == UInt8(ascii: "\n") else { return .damaged }
        var changes: [CacheSizeIndex.Change] = []
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            guard let change = Self.parse(String(decoding: line, as: UTF8.self)) else { return .damaged }
            changes.append(change)
        }
        appliedLength = end
        return .changes(changes)
    }

    /// Records that the caller's index now reflects everything in the journal (after a rebuild).
    func markCaughtUp() throws {
        _ = try openCurrentFile()
        appliedLength = try size()
    }

    /// Appends changes in one `write`, so a record is never interleaved with another.
    func append(_ changes: [CacheSizeIndex.Change]) throws {
        guard !changes.isEmpty else { return }
        _ = try openCurrentFile()
        let before = try size()
        let text = changes.map(Self.format).joined()
        var failure: Int32 = 0
        Array(text.utf8).withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let count = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += count
            }
        }
        guard failure == 0 else { throw FileError(path: path, errno: failure) }
        // Our own lines need no reading back, as long as we had read everything before them.
        if appliedLength == before { appliedLength = before + text.utf8.count }
    }

    /// Replaces the journal with an empty file. Other processes notice the new inode and rebuild
    /// their index; the caller's index stays valid (it must be current when calling this).
    func reset() throws {
        try CacheFileSystem.replaceFile(at: path, with: [UInt8](), durable: false)
        _ = try openCurrentFile()
        appliedLength = 0
    }

    // MARK: File handling

    /// Opens the file the path names now, if the open descriptor is not already that file (first
    /// use, or another process reset the journal). Returns whether it (re)opened.
    private func openCurrentFile() throws -> Bool {
        if descriptor >= 0, let opened = openedFile,
           let onDisk = CacheFileSystem.status(ofPath: path), onDisk.isSameFile(as: opened) {
            return false
        }
        if descriptor >= 0 { close(descriptor) }
        descriptor = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { throw FileError(path: path, errno: errno) }
        openedFile = CacheFileSystem.status(ofDescriptor: descriptor)
        appliedLength = Int.max
        return true
    }

    private func size() throws -> Int {
        guard let status = CacheFileSystem.status(ofDescriptor: descriptor) else {
            throw FileError(path: path, errno: errno)
        }
        return status.size
    }

    // MARK: Record format

    static func format(_ change: CacheSizeIndex.Change) -> String {
        switch change {
        case .stored(let localName, let byteCount, let lastUsedAt): "+ \(byteCount) \(lastUsedAt) \(localName)\n"
        case .removed(let localName): "- \(localName)\n"
        }
    }

    static func parse(_ line: String) -> CacheSizeIndex.Change? {
        let fields = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        switch fields.first {
        case "+":
            guard fields.count == 4, let byteCount = Int(fields[1]), byteCount >= 0,
                  let lastUsedAt = Double(fields[2]), lastUsedAt.isFinite,
                  CacheFileLayout.isValidLocalName(fields[3]) else { return nil }
            return .stored(localName: fields[3], byteCount: byteCount, lastUsedAt: lastUsedAt)
        case "-":
            guard fields.count == 2, CacheFileLayout.isValidLocalName(fields[1]) else { return nil }
            return .removed(localName: fields[1])
        default:
            return nil
        }
    }
}
