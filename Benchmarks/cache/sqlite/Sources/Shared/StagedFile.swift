// Whole-or-nothing image files, as the product's StagedImageFile writes them (condensed): an
// unnamed O_TMPFILE in the image's folder, linked to its name in one step (Linux); elsewhere a
// hidden temporary file renamed into place. Shared by the product either way: not index code.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the index records of an image file to tell it is still the file it wrote.
public struct FileFingerprint: Equatable, Sendable {
    public var size: Int64
    public var inode: Int64
    public var modifiedNanoseconds: Int64
    public init(size: Int64, inode: Int64, modifiedNanoseconds: Int64) {
        self.size = size; self.inode = inode; self.modifiedNanoseconds = modifiedNanoseconds
    }

    public init?(path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    init(_ info: stat) {
        #if canImport(Darwin)
        let mtime = Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
        #else
        let mtime = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        #endif
        self.init(size: Int64(info.st_size), inode: Int64(bitPattern: UInt64(info.st_ino)), modifiedNanoseconds: mtime)
    }
}

public struct FileWriteError: Error { public let path: String; public let code: Int32 }

/// An image written but not yet named.
public final class StagedFile {
    private var descriptor: Int32 = -1
    private var temporaryPath: String?
    public let fingerprint: FileFingerprint

    /// Writes `bytes` to an unnamed file in the folder of `finalPath` (or a hidden temporary one).
    public init(_ bytes: [UInt8], for finalPath: String, folder: String) throws {
        #if os(Linux)
        let unnamed = open(folder, 0o20000000 | O_DIRECTORY | O_WRONLY | O_CLOEXEC, 0o644)
        if unnamed >= 0 {
            guard let status = Self.write(bytes, to: unnamed) else { close(unnamed); throw FileWriteError(path: finalPath, code: errno) }
            descriptor = unnamed
            fingerprint = status
            return
        }
        #endif
        let path = "\(folder)/.\(finalPath.split(separator: "/").last ?? "image").tmp-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        let named = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
        guard named >= 0 else { throw FileWriteError(path: path, code: errno) }
        defer { close(named) }
        guard let status = Self.write(bytes, to: named) else { unlink(path); throw FileWriteError(path: path, code: errno) }
        temporaryPath = path
        fingerprint = status
    }

    deinit { discard() }

    private static func write(_ bytes: [UInt8], to fd: Int32) -> FileFingerprint? {
        var done = 0
        let ok = bytes.withUnsafeBytes { buffer -> Bool in
            while done < buffer.count {
                let n = Glibc_write(fd, buffer.baseAddress! + done, buffer.count - done)
                if n <= 0 { if n < 0 && errno == EINTR { continue }; return false }
                done += n
            }
            return true
        }
        var info = stat()
        guard ok, fstat(fd, &info) == 0 else { return nil }
        return FileFingerprint(info)
    }

    /// Gives the file its name (replacing any file there); 0 or an errno.
    public func place(at finalPath: String) -> Int32 {
        defer { discard() }
        if let path = temporaryPath {
            if rename(path, finalPath) == 0 { temporaryPath = nil; return 0 }
            return errno
        }
        #if os(Linux)
        guard descriptor >= 0 else { return ENOENT }
        if linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", AT_FDCWD, finalPath, AT_SYMLINK_FOLLOW) == 0 { return 0 }
        guard errno == EEXIST else { return errno }
        // linkat never replaces: link aside, then rename over.
        let aside = "\(finalPath).tmp-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        guard linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", AT_FDCWD, aside, AT_SYMLINK_FOLLOW) == 0 else { return errno }
        if rename(aside, finalPath) == 0 { return 0 }
        let failure = errno
        unlink(aside)
        return failure
        #else
        return ENOENT
        #endif
    }

    public func discard() {
        if descriptor >= 0 { close(descriptor); descriptor = -1 }
        if let path = temporaryPath { unlink(path); temporaryPath = nil }
    }
}

@inline(__always) private func Glibc_write(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(fd, p, n)
    #else
    Darwin.write(fd, p, n)
    #endif
}
