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
/// swift-corelibs-foundation gathers every attribute of the item (owner and group names included),
/// about 300,000 instructions a file.
enum FileType: Equatable {
    case regular
    case directory
    case symbolicLink
    /// Anything else, or nothing there.
    case other

    init(atPath path: String) {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            self = .other
            return
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .directory
        case S_IFLNK: self = .symbolicLink
        default: self = .other
        }
    }
}
