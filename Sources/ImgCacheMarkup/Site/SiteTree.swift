import Foundation
import ImgCacheSupport
package import ImgCacheURLs

/// A folder of web content (pages, stylesheets, scripts, local assets) served from one base URL:
/// what `imgcache fetch SITE_DIR --base-url URL` localises in one run.
///
/// Each file's URL is the base URL joined with its path inside the folder, so relative references
/// resolve as they would on the server, and a URL that points back into the folder can be told
/// from one that needs the network (`relativePath(servingURL:)`).
package struct SiteTree: Sendable {
    package typealias FileKind = SiteFileKind

    /// One file of the site.
    package struct File: Sendable, Hashable {
        /// The path inside the site's folder, `/`-separated, e.g. `docs/guide/index.html`.
        package let relativePath: String
        /// Page, stylesheet or asset, by its extension.
        package let kind: FileKind
    }

    /// The site's folder, as given.
    package let root: String
    /// The URL the folder is served from, ending in `/`; nil when not known.
    package let baseURL: BrowserURL?
    /// Every regular file under the folder, hidden ones (names starting with `.`) and excluded
    /// folders left out, sorted by path.
    package let files: [File]
    private let paths: Set<String>
    /// The XXH64 digest of each of `paths`' UTF-8 bytes.
    private let pathDigests: Set<UInt64>
    /// The base URL's serialisation (ending in `/`) as bytes: what a URL served from the folder
    /// starts with. Empty without a base URL.
    private let servingPrefix: [UInt8]
    /// Resolves the files' paths against the base URL where that needs no full parser.
    private let servingResolver: SimpleURLResolver?

    /// Lists the files under `root`.
    /// - Parameters:
    ///   - baseURL: where `root` is served from; a URL whose path does not end in `/` is taken as
    ///     a folder (`https://example.com/app` → `https://example.com/app/`).
    ///   - excluding: folders not to list, such as an output folder inside the site.
    /// - Throws: `FileError` when `root` is not a readable folder.
    package init(root: String, baseURL: BrowserURL?, excluding: [String] = []) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw FileError(path: root, reason: "not a folder")
        }
        self.root = root
        self.baseURL = baseURL.map(Self.folderURL)
        servingPrefix = Array((self.baseURL?.serializedWithoutFragment ?? "").utf8)
        servingResolver = SimpleURLResolver(base: self.baseURL)
        // A file's path inside the folder is the enumerator's URL less the root's components, as
        // the enumerator built it from the root: comparing absolute paths as strings lost files
        // where one side went through a step that drops Darwin's `/private` (`/var/…`, `/tmp/…`,
        // app containers) and the other did not.
        let rootURL = URL(fileURLWithPath: root).standardizedFileURL.resolvingSymlinksInPath()
        let excluded = Set(excluding.map { URL(fileURLWithPath: $0).standardizedFileURL.resolvingSymlinksInPath().path })
        guard let enumerator = FileManager.default.enumerator(
            at: rootURL, includingPropertiesForKeys: [.isRegularFileKey, .isDirectoryKey], options: [.skipsHiddenFiles])
        else { throw FileError(path: root, reason: "cannot list the folder") }
        let rootDepth = rootURL.pathComponents.count
        let rootPrefix = rootURL.path.hasSuffix("/") ? rootURL.path : rootURL.path + "/"
        var files: [File] = []
        for case let url as URL in enumerator {
            let type = FileType(atPath: url.path)
            if type == .directory {
                if excluded.contains(url.resolvingSymlinksInPath().path) { enumerator.skipDescendants() }
                continue
            }
            guard type == .regular else { continue }
            let relative: String
            let path = url.path
            if path.hasPrefix(rootPrefix), path.utf8.count > rootPrefix.utf8.count {
                // The enumerator's path starts with the root's as the root URL spells it: the rest
                // is the relative path, without splitting and joining components for every
                // file.
                relative = String(path[path.utf8.index(path.startIndex, offsetBy: rootPrefix.utf8.count)...])
            } else {
                let components = url.pathComponents
                guard components.count > rootDepth else { continue }
                relative = components[rootDepth...].joined(separator: "/")
            }
            files.append(File(relativePath: relative, kind: Self.kind(ofPath: relative)))
        }
        files.sort { $0.relativePath < $1.relativePath }
        self.files = files
        paths = Set(files.map(\.relativePath))
        pathDigests = Set(files.map { XXH64.hash(Array($0.relativePath.utf8)) })
    }

    /// What a file is, by its extension (case-insensitive).
    package static func kind(ofPath path: String) -> FileKind {
        // The extension as NSString's `pathExtension` finds it (after the last dot of the last
        // component, unless that dot starts it), read as bytes: NSString's steps over
        // Characters, for every file.
        path.withUTF8Bytes { bytes in
            var end = bytes.count
            while end > 0, bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
            let name = bytes[..<end]
            let nameStart = name.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
            guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot > nameStart, name.count - dot - 1 <= 5 else { return .asset }
            // The extension's letters in one word, lower-cased (`| 0x20` makes no other byte a
            // lower-case letter).
            let word = name[(dot + 1)...].reduce(UInt64(0)) { $0 << 8 | UInt64($1 | 0x20) }
            switch word {
            case Self.packed("html"), Self.packed("htm"), Self.packed("xhtml"): return .page
            case Self.packed("css"): return .stylesheet
            default: return .asset
            }
        }
    }

    /// An extension's bytes in one word, the last byte lowest.
    private static func packed(_ ext: StaticString) -> UInt64 {
        ext.withUTF8Buffer { $0.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
    }

    /// The file's path on disk.
    package func path(of file: File) -> String {
        (root as NSString).appendingPathComponent(file.relativePath)
    }

    /// The URL the file is served from: the base URL joined with its relative path (characters
    /// that mean something else in a URL percent-encoded); nil without a base URL.
    package func url(of file: File) -> BrowserURL? {
        guard let baseURL else { return nil }
        let needsEscapes = file.relativePath.withUTF8Bytes { bytes in bytes.contains { Self.escape(of: $0) != nil } }
        // Most sites' paths need neither escapes nor the full parser, which is costly for every
        // file.
        if !needsEscapes, let resolved = servingResolver?.resolve(file.relativePath), let url = BrowserURL.plainHTTP(resolved) {
            return url
        }
        var escaped = ""
        for scalar in file.relativePath.unicodeScalars {
            if scalar.isASCII, let escape = Self.escape(of: UInt8(scalar.value)) {
                escaped += escape
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return baseURL.resolve(escaped)
    }

    /// How a character of a file's path that means something else in a URL is written in its
    /// URL; nil for the others.
    private static func escape(of byte: UInt8) -> String? {
        switch byte {
        case UInt8(ascii: "%"): "%25"
        case UInt8(ascii: "#"): "%23"
        case UInt8(ascii: "?"): "%3F"
        case UInt8(ascii: "\\"): "%5C"
        case UInt8(ascii: ";"): "%3B"
        default: nil
        }
    }

    /// The site file that an absolute URL is served by, when the URL lies under the base URL and
    /// names a file of the folder (query and fragment aside, percent-escapes decoded); else nil.
    /// `url` is a serialised URL (ASCII), so it is read as bytes.
    package func relativePath(servingURL url: String) -> String? {
        guard !servingPrefix.isEmpty else { return nil }
        return url.withUTF8Bytes { relativePath(servingURL: $0) }
    }

    private func relativePath(servingURL url: UnsafeBufferPointer<UInt8>) -> String? {
        let start = servingPrefix.count
        guard url.count >= start, url[..<start].elementsEqual(servingPrefix) else { return nil }
        let end = url[start...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? url.count
        let written = UnsafeBufferPointer(rebasing: url[start..<end])
        if !written.contains(UInt8(ascii: "%")) {
            // Nothing to decode: the path is as written. (An empty, `.` or `..` segment makes a
            // path no file of the folder has, so membership alone decides.) Most URLs under the
            // base are not the folder's files (a site's images, say): their digest alone tells,
            // without a copy and a String made and hashed for each.
            guard pathDigests.contains(XXH64.hash(UnsafeRawBufferPointer(written))) else { return nil }
            let path = String(decoding: written, as: UTF8.self)
            return paths.contains(path) ? path : nil
        }
        var path: [UInt8] = []
        path.reserveCapacity(end - start)
        var segmentStart = start
        while true {
            let segmentEnd = url[segmentStart..<end].firstIndex(of: UInt8(ascii: "/")) ?? end
            let segment = url[segmentStart..<segmentEnd]
            let decodedStart = path.count
            if segment.contains(UInt8(ascii: "%")) {
                path.append(contentsOf: PercentEncoding.decode(segment))
            } else {
                path.append(contentsOf: segment)
            }
            // An empty, `.` or `..` segment names no file of the folder (read as UTF-8, no other
            // bytes spell those).
            switch path.count - decodedStart {
            case 0: return nil
            case 1 where path[decodedStart] == UInt8(ascii: "."): return nil
            case 2 where path[decodedStart] == UInt8(ascii: ".") && path[decodedStart + 1] == UInt8(ascii: "."): return nil
            default: break
            }
            guard segmentEnd < end else { break }
            path.append(UInt8(ascii: "/"))
            segmentStart = segmentEnd + 1
        }
        let decoded = String(decoding: path, as: UTF8.self)
        return paths.contains(decoded) ? decoded : nil
    }

    private static func folderURL(_ url: BrowserURL) -> BrowserURL {
        var text = url.serializedWithoutFragment
        if let query = text.firstIndex(of: "?") { text = String(text[..<query]) }
        if !text.hasSuffix("/") { text += "/" }
        return BrowserURL(text) ?? url
    }
}
