import Foundation

/// Paths as the file system resolves them (absolute, `.` and `..` removed, symbolic links
/// followed), so that two spellings of one file compare equal.
///
/// Each folder is resolved once: a site's files share a few folders, and resolving every file's
/// path whole (with Foundation's `standardizedFileURL` and `resolvingSymlinksInPath`) looked up
/// each of its folders again, 60,000 instructions and five `lstat`s a file before the first page
/// was read. A file that is itself a symbolic link is still resolved whole.
struct CanonicalPaths {
    private var folders: [String: String] = [:]
    private let currentDirectory = FileManager.default.currentDirectoryPath

    /// `path` resolved.
    mutating func of(_ path: String) -> String {
        let parts = lexicalParts(of: path)
        guard let name = parts.last else { return "/" }
        let standardized = Self.joined(parts[...])
        if Self.isSymbolicLink(standardized) { return Self.resolved(standardized) }
        let folder = Self.joined(parts.dropLast())
        let resolvedFolder: String
        if let known = folders[folder] {
            resolvedFolder = known
        } else {
            resolvedFolder = Self.resolved(folder)
            folders[folder] = resolvedFolder
        }
        let nameText = String(Substring(name))
        return resolvedFolder.hasSuffix("/") ? resolvedFolder + nameText : resolvedFolder + "/" + nameText
    }

    /// The components of `path` made absolute, with `.` and `..` taken away as written (as
    /// `standardizedFileURL` does, before any link is followed). Read as bytes: splitting the
    /// `String` compared characters, 22,000 instructions a path.
    private func lexicalParts(of path: String) -> [Substring.UTF8View] {
        let absolute = path.utf8.first == UInt8(ascii: "/") ? path : currentDirectory + "/" + path
        var parts: [Substring.UTF8View] = []
        for part in absolute.utf8.split(separator: UInt8(ascii: "/")) {
            if part.elementsEqual(".".utf8) { continue }
            if part.elementsEqual("..".utf8) {
                _ = parts.popLast()
                continue
            }
            parts.append(Substring(part).utf8)
        }
        return parts
    }

    /// `/` followed by `parts` separated by `/`.
    private static func joined(_ parts: ArraySlice<Substring.UTF8View>) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(parts.reduce(0) { $0 + $1.count + 1 } + 1)
        for part in parts {
            bytes.append(UInt8(ascii: "/"))
            bytes.append(contentsOf: part)
        }
        if bytes.isEmpty { bytes.append(UInt8(ascii: "/")) }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }

    private static func isSymbolicLink(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFLNK
    }
}
