#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What an item in the file system is, the item itself (a link is not followed).
///
/// `lstat` directly rather than `URLResourceValues`' `isRegularFile` and `isDirectory`, for which
/// swift-corelibs-foundation gathers every attribute of the item (owner and group names included)
/// for every file.
package enum FileType: Equatable {
    case regular
    case directory
    case symbolicLink
    /// Anything else, or nothing there.
    case other

    /// What is at `path`: the item itself, or with `followingLinks` what a link leads to.
    package init(atPath path: String, followingLinks: Bool = false) {
        var status = stat()
        guard (followingLinks ? stat(path, &status) : lstat(path, &status)) == 0 else {
            self = .other
            return
        }
        self.init(mode: status.st_mode)
    }

    /// The type a `stat` mode gives.
    init(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .directory
        case S_IFLNK: self = .symbolicLink
        default: self = .other
        }
    }

    /// Why an item of this type is refused where a regular file is needed.
    package var notRegularReason: String {
        switch self {
        case .symbolicLink: "a symbolic link, not a regular file"
        case .directory: "a folder, not a regular file"
        case .regular, .other: "not a regular file"
        }
    }
}
