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
        let path = (ups + to[common...].map(String.init)).joined(separator: "/")
        return path.isEmpty ? "." : path
    }

    /// The path's components once `.` and `..` are worked out, by the letters alone: no symbolic
    /// link is followed and nothing is asked of the file system, so that the two paths compare
    /// alike whether or not they exist yet (`standardizingPath` drops Darwin's `/private` only
    /// from paths that exist). A relative path is taken from `currentDirectory`, asked only then.
    /// Read as bytes: splitting the `String` compared Characters, 22,000 instructions a path.
    static func components(of path: String,
                           from currentDirectory: @autoclosure () -> String = FileManager.default.currentDirectoryPath) -> [Substring] {
        let absolute = path.utf8.first == UInt8(ascii: "/") ? path : currentDirectory() + "/" + path
        var components: [Substring] = []
        for component in absolute.utf8.split(separator: UInt8(ascii: "/")) {
            if component.elementsEqual(".".utf8) { continue }
            if component.elementsEqual("..".utf8) {
                _ = components.popLast()
                continue
            }
            components.append(Substring(component))
        }
        return components
    }
}
