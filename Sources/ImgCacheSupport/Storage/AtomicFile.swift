import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes whole files or nothing: the bytes go to a temporary file in the same folder, which
/// is then renamed over the destination. A reader, or a later run after the process is killed,
/// sees either the old file or the complete new one, never a partial one. (No fsync: that would
/// also cover power loss, at a cost of milliseconds per file that thousands of images can't pay.)
package enum AtomicFile {
    /// Writes `bytes` to `path` atomically, creating the parent folder if needed.
    /// - Throws: `FileError` naming the path when the folder cannot be created or the write fails.
    package static func write(_ bytes: some Collection<UInt8>, to path: String) throws {
        let contiguous = Array(bytes)
        try write(to: path) { emit in try contiguous.withUnsafeBytes { try emit($0) } }
    }

    /// Writes what `produce` hands its `emit` function, piece by piece, to `path` atomically:
    /// for a large file made as it is written (the manifest of thousands of images, a rewritten
    /// page ``RewriteResult/writeBytes(_:)``), which then never has to be whole in memory. When `produce` throws, nothing is written and its
    /// error is rethrown.
    /// - Throws: `FileError` naming the path when the folder cannot be created or a write fails.
    package static func write(to path: String, by produce: (_ emit: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        // Nearly every write goes to a folder that exists: the folder is made (through
        // FileManager, several system calls a file) only when the first try fails.
        var temporary = temporaryName(beside: path)
        var fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if fd < 0 {
            temporary = try temporaryPath(beside: path)
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        }
        guard fd >= 0 else { throw FileError(path: path, errno: errno) }
        do {
            try produce { piece in
                let failure = writeAll(fd, piece)
                if failure != 0 { throw FileError(path: path, errno: failure) }
            }
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        if rename(temporary, path) != 0 {
            let failure = errno
            unlink(temporary)
            throw FileError(path: path, errno: failure)
        }
    }

    /// Puts a copy of the file at `source` at `destination`, whole or not at all: a hard link where
    /// the file system allows one (no bytes copied), else a copy written as ``write(_:to:)`` does.
    /// A destination that is already a link to the source is left as it is. The source must be a
    /// regular file: a symbolic link is not followed (it may point out of the folder being copied).
    /// - Returns: true when the copy is a hard link.
    /// - Throws: `FileError` naming the path that could not be read or written, or the source when
    ///   it is not a regular file.
    @discardableResult
    package static func place(copyOf source: String, at destination: String) throws -> Bool {
        var sourceInfo = stat(), destinationInfo = stat()
        guard lstat(source, &sourceInfo) == 0 else { throw FileError(path: source, errno: errno) }
        guard sourceInfo.st_mode & S_IFMT == S_IFREG else { throw notRegular(source, mode: sourceInfo.st_mode) }
        if stat(destination, &destinationInfo) == 0, destinationInfo.st_ino == sourceInfo.st_ino,
           destinationInfo.st_dev == sourceInfo.st_dev {
            return true
        }
        let temporary = try temporaryPath(beside: destination)
        if link(source, temporary) == 0 {
            // `link` does not follow a symbolic link but links the link itself: one put at the
            // source since `lstat` would end up in the destination.
            var linked = stat()
            guard lstat(temporary, &linked) == 0, linked.st_mode & S_IFMT == S_IFREG else {
                unlink(temporary)
                throw notRegular(source, mode: linked.st_mode)
            }
            guard rename(temporary, destination) == 0 else {
                let failure = errno
                unlink(temporary)
                throw FileError(path: destination, errno: failure)
            }
            return true
        }
        // Another file system, or one without hard links: copy the bytes.
        try write(readRegularFile(source), to: destination)
        return false
    }

    /// Why a file that should be regular is refused, by its type.
    private static func notRegular(_ path: String, mode: mode_t) -> FileError {
        FileError(path: path, reason: FileType(mode: mode).notRegularReason)
    }

    /// A fresh hidden name in `path`'s folder (created if needed), for a file that is renamed to
    /// `path` once whole.
    private static func temporaryPath(beside path: String) throws -> String {
        let directory = path.parentPath
        try createFolder(directory)
        return temporaryName(beside: path)
    }

    /// Creates `directory` and its parents unless it is empty (the current folder) or exists.
    private static func createFolder(_ directory: String) throws {
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw FileError(path: directory, reason: "cannot create folder (\(error.localizedDescription))")
            }
        }
    }

    /// A fresh hidden name in `path`'s folder, which may not exist yet.
    private static func temporaryName(beside path: String) -> String {
        let (folder, fullName) = path.splitAtLastSlash()
        // The temporary name is unique by process and random number; the destination's name is
        // only there for a person reading a folder, so at most 200 bytes of it are kept: a
        // destination whose name is as long as a name may be (255 bytes) must still be writable.
        let name = String(fullName).prefix(maxUTF8Bytes: 200)
        // Strings joined as strings: a substring joined to a string goes through the generic
        // `append(contentsOf:)`, whose first use in a run looks its types up at run time.
        return String(folder) + "." + name + ".tmp-" + String(getpid()) + "-" + String(UInt32.random(in: 0...UInt32.max))
    }

    /// Reads a whole file straight into an array (no intermediate copy: pages can be large),
    /// through symbolic links, or from a pipe.
    /// - Throws: `FileError` naming the path when it cannot be read (missing, a folder, no permission).
    package static func read(_ path: String) throws -> [UInt8] {
        try read(path, onlyRegular: false)
    }

    /// Reads a whole regular file, as ``read(_:)`` does, but refuses a symbolic link (not followed,
    /// even to a regular file) and anything else that is not a regular file: for a file of a folder
    /// that someone else may write, where a link could point anywhere on the machine.
    /// - Throws: `FileError` naming the path when it cannot be read or is not a regular file.
    package static func readRegularFile(_ path: String) throws -> [UInt8] {
        try read(path, onlyRegular: true)
    }

    private static func read(_ path: String, onlyRegular: Bool) throws -> [UInt8] {
        // Without waiting for a writer, so that a pipe is refused rather than read.
        let flags = onlyRegular ? O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK : O_RDONLY | O_CLOEXEC
        let fd = open(path, flags)
        guard fd >= 0 else {
            switch errno {
            case ENOENT: throw FileError(path: path, reason: "no such file")
            case ELOOP where onlyRegular: throw notRegular(path, mode: S_IFLNK)
            default: throw FileError(path: path, errno: errno)
            }
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileError(path: path, errno: errno) }
        guard (info.st_mode & S_IFMT) != S_IFDIR else { throw FileError(path: path, reason: "is a folder, not a file") }
        if onlyRegular, info.st_mode & S_IFMT != S_IFREG { throw notRegular(path, mode: info.st_mode) }
        var readError: Int32 = 0
        var bytes = [UInt8](unsafeUninitializedCapacity: max(Int(info.st_size), 0)) { buffer, initialized in
            initialized = readFully(fd, into: UnsafeMutableRawBufferPointer(buffer), error: &readError)
        }
        // A file that grew since fstat is read to its new end. (Uninitialised: zeroing 64 KB per
        // file cost more than reading a small page. 16 KB: below the 64 KB from which glibc maps
        // a block while downloading, each file mapped and unmapped one, a TLB flush on every CPU.)
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 16_384, alignment: 1)
        defer { chunk.deallocate() }
        while readError == 0 {
            let n = readFully(fd, into: chunk, error: &readError)
            if n == 0 { break }
            bytes += UnsafeRawBufferPointer(rebasing: chunk[0..<n])
        }
        if readError != 0 { throw FileError(path: path, errno: readError) }
        return bytes
    }

    /// Reads until the buffer is full or the file ends; returns the byte count.
    private static func readFully(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, error: inout Int32) -> Int {
        var total = 0
        while total < buffer.count {
            let n = Foundation.read(fd, buffer.baseAddress! + total, buffer.count - total)
            if n < 0 {
                if errno == EINTR { continue }
                error = errno
                break
            }
            if n == 0 { break }
            total += n
        }
        return total
    }
}
