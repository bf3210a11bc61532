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
        // Joined as bytes: arrays of strings joined were costly, and this runs for every page.
        var path: [UInt8] = []
        func add(_ component: some Sequence<UInt8>) {
            if !path.isEmpty { path.append(UInt8(ascii: "/")) }
            path.append(contentsOf: component)
        }
        for _ in common..<from.count { add("..".utf8) }
        for component in to[common...] { add(component.utf8) }
        return path.isEmpty ? "." : String(decoding: path, as: UTF8.self)
    }

    /// The path's components once `.` and `..` are worked out, by the letters alone: no symbolic
    /// link is followed and nothing is asked of the file system, so that the two paths compare
    /// alike whether or not they exist yet (`standardizingPath` drops Darwin's `/private` only
    /// from paths that exist). A relative path is taken from `currentDirectory`, asked only then.
    /// Read as bytes: splitting the `String` compared Characters, far costlier for every path.
    package static func components(of path: String,
                           from currentDirectory: @autoclosure () -> String = FileManager.default.currentDirectoryPath) -> [Substring] {
        let absolute = path.utf8.first == UInt8(ascii: "/") ? path : currentDirectory() + "/" + path
        var components: [Substring] = []
        absolute.withUTF8Bytes { bytes in
            var start = 0
            for end in 0...bytes.count where end == bytes.count || bytes[end] == UInt8(ascii: "/") {
                defer { start = end + 1 }
                switch end - start {
                case 0: continue
                case 1 where bytes[start] == UInt8(ascii: "."): continue
                case 2 where bytes[start] == UInt8(ascii: ".") && bytes[start + 1] == UInt8(ascii: "."): _ = components.popLast()
                default:
                    let first = absolute.utf8.index(absolute.startIndex, offsetBy: start)
                    components.append(absolute[first..<absolute.utf8.index(first, offsetBy: end - start)])
                }
            }
        }
        return components
    }
}
