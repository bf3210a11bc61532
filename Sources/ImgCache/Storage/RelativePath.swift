import Foundation

/// Paths between folders, for writing a cache location as a path relative to a page.
package enum RelativePath {
    /// The path that leads from `folder` to `target`, both taken relative to the current folder
    /// when not absolute: `("Web", "Web/images")` → `images`, `("out", "cache")` → `../cache`.
    package static func from(folder: String, to target: String) -> String {
        let from = components(of: folder)
        let to = components(of: target)
        var common = 0
        while common < from.count, common < to.count, from[common] == to[common] { common += 1 }
        let ups = Array(repeating: "..", count: from.count - common)
        let path = (ups + to[common...]).joined(separator: "/")
        return path.isEmpty ? "." : path
    }

    private static func components(of path: String) -> [String] {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return (absolute as NSString).standardizingPath.split(separator: "/").map(String.init)
    }
}
