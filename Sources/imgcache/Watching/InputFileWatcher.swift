#if CommandLine
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Notices when input files change, by polling their `stat`: the size, modification time and
/// inode. Polling rather than inotify/kqueue because it is the same on every system and sees
/// every way editors save (in place, or a new file renamed over the old one), and a few `stat`s
/// four times a second cost nothing.
///
/// A change is reported once the file has stopped changing for one poll, so that a page is not
/// read half-saved by an editor that truncates and then writes.
///
/// A site folder's files are looked at with `lstat`: one replaced by a symbolic link is reported
/// as not a regular file, never as a change to read, as the site's listing leaves such links out.
/// A file given on its own is followed through links, as the person who named it meant.
struct InputFileWatcher {
    /// What a poll found out about one file.
    enum Change: Equatable {
        /// The file is new or different, and has been still for one poll: read it again.
        case modified(String)
        /// The file is gone (and has stayed gone for one poll).
        case removed(String)
        /// Something other than a regular file is there now (a symbolic link where links are not
        /// followed, a folder, a pipe), and has been for one poll: not to be read.
        case notRegular(String)
    }

    private struct Snapshot: Equatable {
        var size: Int64
        var modifiedAtNanoseconds: Int64
        var inode: UInt64
        var device: UInt64
        var isRegular: Bool
    }

    private struct Tracked {
        let path: String
        /// Whether the file is looked at through symbolic links (`stat`) or as it is (`lstat`).
        let followsLinks: Bool
        /// What was reported last (nil: missing).
        var reported: Snapshot?
        /// What the last poll saw.
        var seen: Snapshot?
        /// Whether `seen` differs from `reported` and waits to be still for a poll.
        var settling = false
    }

    private var files: [Tracked]

    /// Starts watching `paths` as they are now: only later changes are reported. Links are
    /// followed for the paths `followsLinks` says so of.
    init(paths: [String], followsLinks: (String) -> Bool) {
        files = paths.map { path in
            let follows = followsLinks(path)
            let now = Self.snapshot(path, followingLinks: follows)
            return Tracked(path: path, followsLinks: follows, reported: now, seen: now)
        }
    }

    /// Starts watching a file found since: once it has been still for one poll it is reported as
    /// `.modified` (a new file is a change).
    mutating func add(_ path: String, followingLinks: Bool) {
        guard !files.contains(where: { $0.path == path }) else { return }
        files.append(Tracked(path: path, followsLinks: followingLinks, reported: nil, seen: nil))
    }

    /// Stops watching a file.
    mutating func remove(_ path: String) {
        files.removeAll { $0.path == path }
    }

    /// Whether `path` is watched.
    func watches(_ path: String) -> Bool {
        files.contains { $0.path == path }
    }

    /// Looks at every file once and returns the changes that have settled since the last call.
    mutating func poll() -> [Change] {
        var changes: [Change] = []
        for index in files.indices {
            let now = Self.snapshot(files[index].path, followingLinks: files[index].followsLinks)
            defer { files[index].seen = now }
            if now != files[index].seen {
                files[index].settling = now != files[index].reported
                continue
            }
            guard files[index].settling else { continue }
            files[index].settling = false
            files[index].reported = now
            let path = files[index].path
            changes.append(now.map { $0.isRegular ? .modified(path) : .notRegular(path) } ?? .removed(path))
        }
        return changes
    }

    private static func snapshot(_ path: String, followingLinks: Bool) -> Snapshot? {
        var info = stat()
        guard (followingLinks ? stat(path, &info) : lstat(path, &info)) == 0 else { return nil }
        #if canImport(Darwin)
        let modified = Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
        #else
        let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        #endif
        return Snapshot(size: Int64(info.st_size), modifiedAtNanoseconds: modified,
                        inode: UInt64(info.st_ino), device: UInt64(truncatingIfNeeded: Int64(info.st_dev)),
                        isRegular: info.st_mode & S_IFMT == S_IFREG)
    }
}
#endif
