import Foundation

extension String {
    /// This path split after its last `/`: the folder with that `/` (empty when there is none) and
    /// the name. Found in the UTF-8 buffer: `String.lastIndex(of:)` steps back a Character at a
    /// time over the whole name, the UTF-8 view's iterator is costly for every byte, and
    /// NSString's path methods cost more still, for every image and file written.
    package func splitAtLastSlash() -> (folder: Substring, name: Substring) {
        guard let offset = withUTF8Bytes({ $0.lastIndex(of: UInt8(ascii: "/")) }) else { return ("", self[...]) }
        let slash = utf8.index(startIndex, offsetBy: offset)
        return (self[...slash], self[utf8.index(after: slash)...])
    }

    /// The folder holding the file at this path, as `open` takes it: `.` for a bare name, `/` for
    /// a file at the root.
    package var containingFolder: String {
        let folder = splitAtLastSlash().folder
        if folder.isEmpty { return "." }
        // By byte again: the folder less its `/`, which `Substring.count` and `dropLast()` would
        // reach by stepping over every Character of the folder.
        let slash = utf8.index(before: folder.endIndex)
        return slash == startIndex ? "/" : String(self[..<slash])
    }
}

extension String {
    /// `(self as NSString).deletingLastPathComponent`, found by byte for a path without doubled
    /// or trailing slashes (what paths built by this package are); NSString's, which steps over
    /// the path a Character at a time, for the rest.
    package var parentPath: String {
        // nil: the path is not one the byte search gives NSString's answer for.
        let lastSlash: Int?? = withUTF8Bytes { bytes in
            guard let last = bytes.last, last != UInt8(ascii: "/") else { return .none }
            var previous: UInt8 = 0
            for byte in bytes {
                if byte == UInt8(ascii: "/"), previous == UInt8(ascii: "/") { return .none }
                previous = byte
            }
            return .some(bytes.lastIndex(of: UInt8(ascii: "/")))
        }
        switch lastSlash {
        case .none: return (self as NSString).deletingLastPathComponent
        case .some(.none): return ""
        case .some(.some(0)): return "/"
        case .some(.some(let offset)): return String(self[..<utf8.index(startIndex, offsetBy: offset)])
        }
    }
}
