import Foundation
import ImgCacheSupport

/// Paths as the file system resolves them (absolute, `.` and `..` removed, symbolic links
/// followed), so that two spellings of one file compare equal.
///
/// Each folder is resolved once: a site's files share a few folders, and resolving every file's
/// path whole (with Foundation's `standardizedFileURL` and `resolvingSymlinksInPath`) looked up
/// each of its folders again, an `lstat` each, for every file before the first page was read. A
/// file that is itself a symbolic link is still resolved whole.
package struct CanonicalPaths {
    private var folders: [String: String] = [:]
    private let currentDirectory = FileManager.default.currentDirectoryPath

    package init() {}

    /// `path` resolved.
    package mutating func of(_ path: String) -> String {
        let standardized: String, folder: String, name: Substring
        if Self.isStandard(path) {
            // Already what splitting and joining it would give (the paths of a site's files,
            // made from a standard folder path), so that work is saved for every file.
            standardized = path
            folder = path.containingFolder
            name = path.splitAtLastSlash().name
        } else {
            let parts = RelativePath.components(of: path, from: currentDirectory)
            guard let last = parts.last else { return "/" }
            standardized = Self.joined(parts[...])
            folder = Self.joined(parts.dropLast())
            name = last
        }
        if FileType(atPath: standardized) == .symbolicLink { return Self.resolved(standardized) }
        let resolvedFolder: String
        if let known = folders[folder] {
            resolvedFolder = known
        } else {
            resolvedFolder = Self.resolved(folder)
            folders[folder] = resolvedFolder
        }
        return resolvedFolder.hasSuffix("/") ? resolvedFolder + name : resolvedFolder + "/" + name
    }

    /// Whether `path` is absolute and has no empty, `.` or `..` component and no trailing `/`.
    private static func isStandard(_ path: String) -> Bool {
        path.withUTF8Bytes { bytes in
            guard bytes.count > 1, bytes.first == UInt8(ascii: "/"), bytes.last != UInt8(ascii: "/") else { return false }
            var componentStart = 1
            for index in 1...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "/") {
                switch index - componentStart {
                case 0: return false
                case 1 where bytes[componentStart] == UInt8(ascii: "."): return false
                case 2 where bytes[componentStart] == UInt8(ascii: ".") && bytes[componentStart + 1] == UInt8(ascii: "."): return false
                default: componentStart = index + 1
                }
            }
            return true
        }
    }

    /// `/` followed by `parts` separated by `/` (cheaper than `joined(separator:)`).
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
