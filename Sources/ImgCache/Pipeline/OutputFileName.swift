import Foundation
import ImgCacheStore

/// A URL path segment made into a file name: percent-escapes decoded, and nothing that could
/// leave the output folder or fail to be created there: `/` and NUL become `_`, `.` and `..`
/// become `index.html`, and a name longer than a file name may be (255 bytes) is shortened,
/// keeping its extension, with a digest of the whole so that two long names stay apart.
enum OutputFileName {
    static let maxNameBytes = 255

    static func fromURLSegment(_ segment: String) -> String {
        let decoded = segment.removingPercentEncoding ?? segment
        let safe = decoded.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "\0", with: "_")
        if safe == "." || safe == ".." || safe.isEmpty { return "index.html" }
        return safe.utf8.count > maxNameBytes ? shortened(safe) : safe
    }

    private static func shortened(_ name: String) -> String {
        let ext = (name as NSString).pathExtension
        let digest = CacheContentDigest.sha256Hex(Array(name.utf8)).prefix(16)
        let suffix = "-\(digest)" + (ext.isEmpty || ext.utf8.count > 16 ? "" : "." + ext)
        return name.prefix(maxUTF8Bytes: maxNameBytes - suffix.utf8.count) + suffix
    }
}
