#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ImgCacheSupport

/// An exclusive `flock` on `.imgcache.lock`, which every process using the folder takes before
/// changing an entry, evicting, pruning or clearing. Readers never take it: every file is
/// replaced by an atomic rename, so reading needs no lock.
///
/// `flock` belongs to the open file, so two stores in one process (each with its own descriptor)
/// exclude each other just as two processes do, and the lock goes away with the process if it is
/// killed. Not thread-safe on its own: threads sharing one descriptor would not exclude each
/// other, so the store takes its mutex before this lock.
final class CacheFolderLock {
    private let path: String
    private var descriptor: Int32 = -1

    init(path: String) {
        self.path = path
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Blocks until this process holds the folder exclusively.
    func acquire() throws {
        while true {
            if descriptor < 0 {
                descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
                guard descriptor >= 0 else { throw FileError(path: path, errno: errno) }
            }
            while flock(descriptor, LOCK_EX) != 0 {
                guard errno == EINTR else { throw FileError(path: path, errno: errno) }
            }
            // If the lock file was deleted (or replaced) meanwhile, newcomers lock a different
            // file than ours and we would not exclude them; start over on the file the path names.
            if let held = CacheFileSystem.status(ofDescriptor: descriptor),
               let named = CacheFileSystem.status(ofPath: path), held.isSameFile(as: named) {
                return
            }
            close(descriptor)  // also releases the lock
            descriptor = -1
        }
    }

    /// Lets other processes in.
    func release() {
        if descriptor >= 0 { flock(descriptor, LOCK_UN) }
    }
}
