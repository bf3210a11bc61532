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
        let parts = RelativePath.components(of: path, from: currentDirectory)
        guard let name = parts.last else { return "/" }
        let standardized = Self.joined(parts[...])
        if FileType(atPath: standardized) == .symbolicLink { return Self.resolved(standardized) }
        let folder = Self.joined(parts.dropLast())
        let resolvedFolder: String
        if let known = folders[folder] {
            resolvedFolder = known
        } else {
            resolvedFolder = Self.resolved(folder)
            folders[folder] = resolvedFolder
        }
        return resolvedFolder.hasSuffix("/") ? resolvedFolder + name : resolvedFolder + "/" + name
    }

    /// `/` followed by `parts` separated by `/` (`joined(separator:)` cost 6,800 instructions a path).
    private static func joined(_ parts: ArraySlice<Substring>) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(parts.reduce(0) { $0 + $1.utf8.count + 1 } + 1)
        for part in parts {
            bytes.append(UInt8(ascii: "/"))
            bytes.append(contentsOf: part.utf8)
        }
        if bytes.isEmpty { bytes.append(UInt8(ascii: "/")) }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }
}
