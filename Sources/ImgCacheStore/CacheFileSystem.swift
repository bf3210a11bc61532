import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ImgCacheSupport

/// What `stat` says about a file, in the units the cache compares.
struct FileStatus: Sendable, Equatable {
    var size: Int
    var modifiedAtNanoseconds: Int64
    var inode: UInt64
    var device: UInt64
    var isRegularFile: Bool

    /// The part recorded in metadata to recognise the file later.
    var fingerprint: ImageFileFingerprint {
        ImageFileFingerprint(size: size, modifiedAtNanoseconds: modifiedAtNanoseconds, inode: inode)
    }

    /// Whether two statuses describe the same file (not just equal contents).
    func isSameFile(as other: FileStatus) -> Bool { inode == other.inode && device == other.device }

    init(_ info: stat) {
        size = Int(info.st_size)
        #if canImport(Darwin)
        modifiedAtNanoseconds = Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
        #else
        modifiedAtNanoseconds = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        #endif
        inode = UInt64(info.st_ino)
        // `dev_t` is signed on Darwin: the bits are the identity, not a quantity.
        device = UInt64(truncatingIfNeeded: Int64(info.st_dev))
        isRegularFile = (info.st_mode & S_IFMT) == S_IFREG
    }
}

/// The handful of POSIX file operations the cache is built from. Plain system calls rather than
/// `FileManager`, because the guarantees the cache rests on are properties of these calls:
/// `rename` replaces a file atomically, `O_EXCL` never reuses another writer's temporary file,
/// `fstat` on an open descriptor describes exactly the file being read, and `O_NOFOLLOW` keeps a
/// planted symbolic link from making the cache serve some other file.
enum CacheFileSystem {
    /// The status of the file at `path` itself (a symbolic link is reported as such, not followed),
    /// or nil when there is none.
    static func status(ofPath path: String) -> FileStatus? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return FileStatus(info)
    }

    /// The status of an open file.
    static func status(ofDescriptor descriptor: Int32) -> FileStatus? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        return FileStatus(info)
    }

    /// Writes `bytes` to a new temporary file beside `finalPath` (same folder, so that renaming
    /// it into place is atomic) and returns its path and status. The status is taken from the
    /// open file after the last write, so it describes these bytes even if the file is later
    /// replaced; renaming keeps the inode and modification time.
    static func writeTemporaryFile(
        _ bytes: some Collection<UInt8>, beside finalPath: String, durable: Bool
    ) throws -> (path: String, status: FileStatus) {
        let temporary = CacheFileLayout.temporaryPath(beside: finalPath)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { throw FileError(path: temporary, errno: errno) }
        let written = writeContents(bytes, to: descriptor, durable: durable)
        close(descriptor)
        switch written {
        case .success(let status):
            return (temporary, status)
        case .failure(let failure):
            unlink(temporary)
            throw FileError(path: temporary, errno: failure.code)
        }
    }

    /// An `errno` value, as an `Error`.
    struct SystemError: Error {
        let code: Int32
    }

    /// Writes `bytes` to a new, empty open file, flushes it to disk with `durable`, and returns the
    /// status of the file as written. Leaves the descriptor open.
    static func writeContents(_ bytes: some Collection<UInt8>, to descriptor: Int32, durable: Bool) -> Result<FileStatus, SystemError> {
        var failure: Int32 = 0
        let written: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            failure = writeAll(descriptor, UnsafeRawBufferPointer(buffer))
        }
        if written == nil {
            failure = Array(bytes).withUnsafeBytes { writeAll(descriptor, $0) }
        }
        if failure == 0, durable, !flushToDrive(descriptor) { failure = errno }
        guard failure == 0 else { return .failure(SystemError(code: failure)) }
        guard let status = status(ofDescriptor: descriptor) else { return .failure(SystemError(code: errno == 0 ? EIO : errno)) }
        return .success(status)
    }

    /// Flushes an open file's bytes to the drive itself: on Darwin `fsync` only hands them to the
    /// drive, whose cache a power cut loses; `F_FULLFSYNC` asks the drive to flush, and where a
    /// file system does not support it (some network ones) `fsync` is what is left.
    static func flushToDrive(_ descriptor: Int32) -> Bool {
        #if canImport(Darwin)
        if fcntl(descriptor, F_FULLFSYNC) == 0 { return true }
        #endif
        return fsync(descriptor) == 0
    }

    /// Renames `source` over `destination` in one step: readers see the old file or the new
    /// one, never a mixture. Returns the `errno` on failure, leaving cleanup to the caller, who
    /// knows whether the source is worth another try.
    static func rename(_ source: String, to destination: String) -> Int32 {
        Foundation.rename(source, destination) == 0 ? 0 : errno
    }

    /// Writes `bytes` to `path` atomically (temporary file, then rename).
    static func replaceFile(at path: String, with bytes: some Collection<UInt8>, durable: Bool) throws {
        let staged = try writeTemporaryFile(bytes, beside: path, durable: durable)
        let failure = rename(staged.path, to: path)
        if failure != 0 {
            unlink(staged.path)
            throw FileError(path: path, errno: failure)
        }
        if durable { syncFolder(containing: path) }
    }

    /// Flushes the folder holding `path`, so that a rename into it survives a power cut too.
    /// Best effort: some file systems refuse to sync a folder, and the file's bytes are already safe.
    static func syncFolder(containing path: String) {
        let descriptor = open(path.containingFolder, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = flushToDrive(descriptor)
        close(descriptor)
    }

    /// Deletes a file. Returns false when there was none, which is not an error: another process
    /// may have removed it first.
    @discardableResult
    static func removeFile(at path: String) throws -> Bool {
        if unlink(path) == 0 { return true }
        let failure = errno
        if failure == ENOENT || failure == ENOTDIR { return false }
        throw FileError(path: path, errno: failure)
    }

    /// Reads a whole regular file together with the status of the very file read (not of
    /// whatever the path names a moment later). Nil when it is missing, not a regular file, a
    /// symbolic link, unreadable, or changed length while being read.
    static func readFile(at path: String) -> (bytes: [UInt8], status: FileStatus)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard let status = status(ofDescriptor: descriptor), status.isRegularFile else { return nil }
        var bytes = [UInt8](repeating: 0, count: status.size)
        var offset = 0
        let complete: Bool = bytes.withUnsafeMutableBytes { raw in
            while offset < raw.count {
                let count = read(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                if count == 0 { return false }  // shorter than `stat` said: truncated meanwhile
                offset += count
            }
            // One more byte would mean the file grew while being read.
            var extra: UInt8 = 0
            return read(descriptor, &extra, 1) == 0
        }
        return complete ? (bytes, status) : nil
    }

    /// Creates a folder and its parents; succeeds when it already exists.
    static func createFolder(at path: String) throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue { return }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw FileError(path: path, reason: "cannot create folder (\(error.localizedDescription))")
        }
    }

    /// The names in a folder, hidden ones included; empty when it cannot be listed.
    static func names(inFolder path: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    }
}
