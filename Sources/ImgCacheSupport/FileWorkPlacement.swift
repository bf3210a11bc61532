/// Where a ``LocalizationSession`` reads and writes its pages and stylesheets, and looks for a
/// page's images in the cache: on the calling task, or on Dispatch threads of the session's own.
///
/// Image files are always written on the session's own threads; this is about the small pieces
/// of work a page needs before and after its downloads.
public struct FileWorkPlacement: Sendable, Equatable {
    /// The longest a piece of work may take for the next to run in place (nil: none runs in place).
    let inPlaceLimit: Duration?

    /// Always on the session's own threads: the cooperative pool never waits on a file. For a cache
    /// or pages on a network file system or a slow disk.
    public static let offPool = FileWorkPlacement(inPlaceLimit: nil)

    /// On the calling task while each piece of such work has taken at most `limit`; from the first
    /// that took longer, on the session's own threads for the rest of the session. On a local file
    /// system reading or writing a page takes less time than the two thread wake-ups that a hop
    /// to another thread and back costs.
    public static func inPlaceWhileQuick(limit: Duration) -> FileWorkPlacement {
        FileWorkPlacement(inPlaceLimit: limit)
    }

    /// In place while each piece has taken at most 2 ms: the default.
    public static let `default` = inPlaceWhileQuick(limit: .milliseconds(2))
}
