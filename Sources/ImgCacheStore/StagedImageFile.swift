#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ImgCacheSupport

/// An image's bytes written to a file that is not yet at its final name, so that the name only
/// ever shows a whole image.
///
/// On Linux the file is unnamed (`O_TMPFILE`): an inode in the cache folder with no name, given
/// its final name by `linkat` in one step. Compared with a named temporary file renamed into
/// place, that changes the folder once instead of twice per image, allocates the inode without
/// holding the folder's lock in the kernel, and a process killed before the link leaves nothing
/// behind. Where the file system or platform has no unnamed files, it is a hidden temporary file
/// beside the final name, renamed into place.
final class StagedImageFile {
    private enum Location {
        case unnamed(descriptor: Int32)
        case named(path: String)
    }

    private var location: Location?
    /// The file as written: its size, inode and modification time are what the index records.
    /// Linking or renaming keeps all three.
    let status: FileStatus
    private let support: Support

    private init(location: Location, status: FileStatus, support: Support) {
        self.location = location
        self.status = status
        self.support = support
    }

    /// What a store has learnt about unnamed files where its cache is: after a first failure,
    /// later images go the way that works at once. Kept by each store (another store may be on
    /// another file system), not by the process.
    final class Support: Sendable {
        #if os(Linux)
        /// Set once linking an unnamed file failed for want of `/proc`: later images go straight
        /// to named temporary files instead of being written twice.
        fileprivate let unnamedFilesUnusable: ThreadLocked<Bool>
        /// Set once the kernel refused to link an unnamed file by its descriptor: later images go
        /// through `/proc/self/fd` at once.
        fileprivate let descriptorLinksRefused = ThreadLocked(false)
        #endif

        /// - Parameter portable: named temporary files only, as on Apple platforms. The default
        ///   is set by `IMGCACHE_PORTABLE_FILES=1`, which the tests use to run the path Darwin takes.
        init(portable: Bool = getenv("IMGCACHE_PORTABLE_FILES").map { String(cString: $0) == "1" } ?? false) {
            #if os(Linux)
            unnamedFilesUnusable = ThreadLocked(portable)
            #endif
        }
    }

    deinit { discard() }

    /// Writes `bytes` to a new file in `finalPath`'s folder, unnamed where `support` has not
    /// found that unusable.
    /// - Throws: `FileError` when the folder does not exist or the file cannot be written.
    static func write(_ bytes: [UInt8], for finalPath: String, durable: Bool, support: Support) throws -> StagedImageFile {
        #if os(Linux)
        if !support.unnamedFilesUnusable.withLock({ $0 }),
           let unnamed = writeUnnamed(bytes, inFolderOf: finalPath, durable: durable, support: support) { return unnamed }
        #endif
        let staged = try CacheFileSystem.writeTemporaryFile(bytes, beside: finalPath, durable: durable)
        return StagedImageFile(location: .named(path: staged.path), status: staged.status, support: support)
    }

    /// Gives the file its final name, replacing any file there. Returns 0, or the `errno` of the
    /// failure (the staged file is then discarded).
    func place(at finalPath: String) -> Int32 {
        defer { discard() }
        switch location {
        case .named(let path):
            let failure = CacheFileSystem.rename(path, to: finalPath)
            // Renamed: nothing left to discard. Not renamed: `discard` deletes the temporary file.
            if failure == 0 { location = nil }
            return failure
        case .unnamed(let descriptor):
            #if os(Linux)
            let linked = Self.link(descriptor, to: finalPath, support: support)
            guard linked == EEXIST else { return linked }
            // `linkat` never replaces a file: link under a temporary name, then rename over.
            let temporary = CacheFileLayout.temporaryPath(beside: finalPath)
            let linkedAside = Self.link(descriptor, to: temporary, support: support)
            guard linkedAside == 0 else { return linkedAside }
            let failure = CacheFileSystem.rename(temporary, to: finalPath)
            if failure != 0 { unlink(temporary) }
            return failure
            #else
            _ = descriptor
            return ENOTSUP
            #endif
        case nil:
            return ENOENT
        }
    }

    /// Deletes the staged file if it was not placed.
    func discard() {
        switch location {
        case .unnamed(let descriptor): close(descriptor)
        case .named(let path): unlink(path)
        case nil: break
        }
        location = nil
    }

    #if os(Linux)
    /// Gives an unnamed file the name `path`. Returns 0, or the `errno` of the failure.
    ///
    /// By its descriptor (`AT_EMPTY_PATH`) where the kernel allows it to the process that opened
    /// the file (Linux 6.10 and later; before, only with `CAP_DAC_READ_SEARCH`), else by
    /// `/proc/self/fd/N`, which costs a path look-up in procfs for every image.
    /// - Parameter byDescriptor: false to go through `/proc` whatever the kernel allows (for tests
    ///   of that path).
    static func link(_ descriptor: Int32, to path: String, support: Support, byDescriptor: Bool = true) -> Int32 {
        let triedDescriptor = byDescriptor && !support.descriptorLinksRefused.withLock { $0 }
        if triedDescriptor {
            if linkat(descriptor, "", AT_FDCWD, path, atEmptyPath) == 0 { return 0 }
            let failure = errno
            // ENOENT is also what a missing folder gives: /proc tells the two apart.
            guard failure == ENOENT || failure == EPERM else { return failure }
        }
        if linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0 {
            if triedDescriptor { support.descriptorLinksRefused.withLock { $0 = true } }
            return 0
        }
        let failure = errno
        if failure == ENOENT, access("/proc/self/fd", F_OK) != 0 {
            // No /proc (a bare container) and no descriptor links: unnamed files cannot be linked here, ever.
            support.unnamedFilesUnusable.withLock { $0 = true }
        }
        return failure
    }

    /// `AT_EMPTY_PATH`, which Swift's Glibc does not import (it needs `_GNU_SOURCE`).
    private static let atEmptyPath: Int32 = 0x1000

    /// `O_TMPFILE`, which Swift does not import (a macro of macros). The same value on every
    /// architecture Swift runs on.
    private static let unnamedFileFlag: Int32 = 0o20000000 | O_DIRECTORY

    private static func writeUnnamed(_ bytes: [UInt8], inFolderOf finalPath: String, durable: Bool, support: Support) -> StagedImageFile? {
        let descriptor = open(finalPath.containingFolder, unnamedFileFlag | O_WRONLY | O_CLOEXEC, 0o644)
        // Not supported here (old kernel, a file system without it): use a named temporary file.
        guard descriptor >= 0 else { return nil }
        guard case .success(let status) = CacheFileSystem.writeContents(bytes, to: descriptor, durable: durable) else {
            close(descriptor)
            return nil
        }
        return StagedImageFile(location: .unnamed(descriptor: descriptor), status: status, support: support)
    }
    #endif
}
