extension String {
    /// This path split after its last `/`: the folder with that `/` (empty when there is none) and
    /// the name. Found by byte: `String.lastIndex(of:)` steps back a Character at a time over the
    /// whole name, and NSString's path methods cost more still, for every image and file written.
    func splitAtLastSlash() -> (folder: Substring, name: Substring) {
        guard let slash = utf8.lastIndex(of: UInt8(ascii: "/")) else { return ("", self[...]) }
        return (self[...slash], self[utf8.index(after: slash)...])
    }

    /// The folder holding the file at this path, as `open` takes it: `.` for a bare name, `/` for
    /// a file at the root.
    var containingFolder: String {
        let folder = splitAtLastSlash().folder
        if folder.isEmpty { return "." }
        // By byte again: the folder less its `/`, which `Substring.count` and `dropLast()` would
        // reach by stepping over every Character of the folder.
        let slash = utf8.index(before: folder.endIndex)
        return slash == startIndex ? "/" : String(self[..<slash])
    }
}
