package import ImgCacheURLs
import ImgCacheSupport
/// Maps an absolute image URL to its file name inside the cache directory.
///
/// The name is the SHA-256 of the URL (without its fragment, which never changes what is fetched)
/// plus the URL's image extension, so the same URL gets the same file in every run and process,
/// and two URLs never share one. With fan-out, the first two hex digits name a subfolder.
public struct LocalImageNaming: Sendable, Hashable {
    /// Lowercase extensions, without dots, that count as images.
    public var extensions: Set<String> {
        didSet { spellings = Self.spellings(of: extensions) }
    }
    /// Whether names go into a two-hex-digit subfolder (`3f/3f2a….png`).
    public var fanOut: Bool
    /// The extensions of up to eight ASCII bytes, each spelled in a word: what the extension of
    /// every URL of a page is compared with (comparing strings showed in the cost of rewriting
    /// pages dense in `srcset`).
    private var spellings: [Spelling]

    private struct Spelling: Sendable {
        /// The bytes, the first in the lowest byte.
        let word: UInt64
        let count: Int
        let ext: String
    }

    private static func spellings(of extensions: Set<String>) -> [Spelling] {
        extensions.compactMap { ext in
            guard ext.utf8.count <= 8, ext.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
            return Spelling(word: word(ext.utf8), count: ext.utf8.count, ext: ext)
        }
    }

    /// The one of `spellings` that `bytes` (ASCII, at most eight) spell, ASCII letters in any case.
    /// Inlined, and a loop rather than `first(where:)`: as a call, each URL retained the array.
    @inline(__always)
    private static func spelling(in spellings: [Spelling], of bytes: UnsafeBufferPointer<UInt8>) -> Spelling? {
        let lowered = word(bytes.lazy.map(\.asciiLowercased))
        for spelling in spellings where spelling.count == bytes.count && spelling.word == lowered { return spelling }
        return nil
    }

    /// Up to eight bytes in a word, the first in the lowest byte.
    private static func word(_ bytes: some Collection<UInt8>) -> UInt64 {
        var word: UInt64 = 0
        for (index, byte) in bytes.enumerated() { word |= UInt64(byte) << UInt64(8 * index) }
        return word
    }

    /// Two namings are equal when they enable the same extensions with the same fan-out.
    public static func == (lhs: LocalImageNaming, rhs: LocalImageNaming) -> Bool {
        lhs.extensions == rhs.extensions && lhs.fanOut == rhs.fanOut
    }

    /// Hashes what equality compares: the extensions and the fan-out.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(extensions)
        hasher.combine(fanOut)
    }

    /// The extensions imgcache localises unless told otherwise: the formats every browser it
    /// targets shows, WebP and AVIF included, since a `<picture>` source of a type the browser
    /// shows is the one it picks, and left remote it is missing offline.
    public static let defaultExtensions: Set<String> = ["jpg", "jpeg", "png", "gif", "webp", "avif"]

    /// Creates a naming scheme.
    /// - Parameters:
    ///   - extensions: image extensions, any case, with or without a leading dot.
    ///   - fanOut: put files into two-hex-digit subfolders.
    public init(extensions: Set<String> = LocalImageNaming.defaultExtensions, fanOut: Bool = false) {
        self.extensions = Set(extensions.map { ext in
            let lower = ext.lowercased()
            return lower.hasPrefix(".") ? String(lower.dropFirst()) : lower
        })
        self.fanOut = fanOut
        spellings = Self.spellings(of: self.extensions)
    }

    /// The image extension of an http(s) URL's path (query and fragment ignored), lowercased,
    /// when it is one of `extensions`.
    package func imageExtension(of url: BrowserURL) -> String? {
        guard url.isHTTP else { return nil }
        return imageExtension(ofHTTPURL: url.serialized)
    }

    /// `imageExtension(of:)` for a serialised http(s) URL.
    func imageExtension(ofHTTPURL serializedURL: String) -> String? {
        Self.withExtensionBytes(ofHTTPURL: serializedURL) { ext in ext.flatMap(matchingExtension) }
    }

    /// Hands `body` the bytes after the last `.` of an http(s) URL's last path segment
    /// (percent-decoded; query and fragment ignored), or nil when that segment has no `.`.
    ///
    /// An http(s) URL serialises as scheme://authority/path?query#fragment, and its path holds no
    /// raw `?` or `#`: the last segment can be read off the serialisation. Read as bytes: through
    /// `String.UTF8View` each search was a generic index walk. Inlined, as is `matchingExtension`,
    /// so that the closures given to it capture nothing: as calls, every URL's ``pathKind(ofHTTPURL:)``
    /// retained and released the naming's extensions and spellings, which showed on pages dense in
    /// `srcset`.
    @inline(__always)
    private static func withExtensionBytes<Result>(
        ofHTTPURL serializedURL: String, _ body: (UnsafeBufferPointer<UInt8>?) -> Result
    ) -> Result {
        func afterLastDot(_ segment: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
            guard let dot = segment.lastIndex(of: UInt8(ascii: ".")) else { return nil }
            return UnsafeBufferPointer(rebasing: segment[(dot + 1)...])
        }
        return serializedURL.withUTF8Bytes { bytes -> Result in
            // The path's end found a word at a time, then its last segment read backwards: four
            // searches over each URL cost as much as the rest of its naming.
            let pathEnd = bytes.firstOffset(of: UInt8(ascii: "?"), or: UInt8(ascii: "#"), from: 0, before: bytes.count)
            var segmentStart = pathEnd
            var lastDot = -1, hasPercent = false
            while segmentStart > 0 {
                let byte = bytes[segmentStart &- 1]
                // `%`, `.` and `/` all sort below `0`: the letters and digits that make most of a
                // segment pass on one comparison.
                if byte < UInt8(ascii: "0") {
                    if byte == UInt8(ascii: "/") { break }
                    if byte == UInt8(ascii: "."), lastDot < 0 { lastDot = segmentStart &- 1 }
                    if byte == UInt8(ascii: "%") { hasPercent = true }
                }
                segmentStart &-= 1
            }
            // No `/` before it: no path to read.
            guard segmentStart > 0 else { return body(nil) }
            if hasPercent {
                let segment = UnsafeBufferPointer(rebasing: bytes[segmentStart..<pathEnd])
                return PercentEncoding.decode(segment).withUnsafeBufferPointer { body(afterLastDot($0)) }
            }
            guard lastDot >= 0 else { return body(nil) }
            return body(UnsafeBufferPointer(rebasing: bytes[(lastDot + 1)..<pathEnd]))
        }
    }

    /// The enabled extension these bytes spell, in any case.
    @inline(__always)
    private func matchingExtension(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        // A handful of lowercase extensions: comparing bytes, ASCII letters folded, costs less than
        // lowercasing the candidate into a new string and hashing it (measured on srcset-heavy pages).
        guard bytes.allSatisfy({ $0 < 0x80 }) else {
            // Not ASCII: Unicode's lowercasing, which maps a few letters, the Kelvin sign among
            // them, to ASCII; invalid UTF-8 is read as U+FFFD.
            let candidate = String(decoding: bytes, as: UTF8.self)
            guard candidate.utf8.count <= 16 else { return nil }
            let ext = candidate.lowercased()
            return extensions.contains(ext) ? ext : nil
        }
        guard bytes.count <= 16 else { return nil }
        if bytes.count <= 8 {
            // Only an ASCII extension can match ASCII bytes.
            return Self.spelling(in: spellings, of: bytes)?.ext
        }
        for ext in extensions where ext.utf8.count == bytes.count {
            let matches = ext.withUTF8Bytes { spelled in
                zip(spelled, bytes).allSatisfy { $0 == $1.asciiLowercased }
            }
            if matches { return ext }
        }
        return nil
    }

    /// The file name (with its fan-out folder, if any) for an http(s) image URL, or nil when the
    /// URL is not http(s) or has no enabled image extension.
    package func localName(for url: BrowserURL) -> String? {
        name(for: url)?.string
    }

    func name(for url: BrowserURL) -> LocalName? {
        url.isHTTP ? name(forHTTPURL: url.serialized) : nil
    }

    /// `name(for:)` for a serialised http(s) URL.
    func name(forHTTPURL serializedURL: String) -> LocalName? {
        guard let ext = imageExtension(ofHTTPURL: serializedURL) else { return nil }
        return name(forHTTPURL: serializedURL, extension: ext)
    }

    /// The file name an http(s) URL whose path names no image format gets once its bytes are known
    /// to be `format`: `SHA-256(url).<the format's extension>`, so that a local web server or
    /// `loadFileURL` serves it with the right type. Nil for a URL that is not http(s).
    package func localName(for url: BrowserURL, format: ImageFormat) -> String? {
        url.isHTTP ? name(forHTTPURL: url.serialized, extension: format.fileExtension).string : nil
    }

    /// What an http(s) URL's path says it is.
    package enum PathKind: Sendable, Equatable {
        /// An enabled image extension (lowercase).
        case image(String)
        /// No extension, or one that names no kind of file (`.php`, `.ashx`, `.aspx`, `.img`,
        /// `.cgi`, …): in a place where markup expects an image, its bytes decide.
        case untyped
        /// An extension that names another kind of file: a script, a stylesheet, a font, a page,
        /// or an image format that is not enabled.
        case other
    }

    /// Extensions that name something other than an image imgcache would keep (besides image
    /// formats that are not enabled): never fetched to see what they are.
    static let otherKinds: Set<String> = [
        "js", "mjs", "css", "json", "xml", "html", "htm", "xhtml", "txt", "md", "pdf", "csv",
        "woff", "woff2", "ttf", "otf", "eot",
        "mp4", "webm", "ogg", "ogv", "mp3", "wav", "m4a", "m4v", "mov", "avi", "m3u8",
        "zip", "gz", "tar", "rar", "7z", "exe", "dmg", "apk", "wasm", "map",
        "jpg", "jpeg", "png", "gif", "svg", "svgz", "webp", "avif", "bmp", "ico", "tif", "tiff", "heic", "heif", "jxl", "jp2",
    ]

    /// ``otherKinds``, spelled as words (every one is ASCII and at most eight bytes long).
    private static let otherKindSpellings = spellings(of: otherKinds)

    /// ``PathKind`` of a serialised http(s) URL (its last path segment's extension, query and
    /// fragment ignored). Read in one pass: the rewriter asks it of every URL naming no enabled
    /// extension, and reading the segment again for each question cost as much as hashing the name.
    package func pathKind(ofHTTPURL serializedURL: String) -> PathKind {
        Self.withExtensionBytes(ofHTTPURL: serializedURL) { ext -> PathKind in
            guard let ext else { return .untyped }
            if let image = matchingExtension(ext) { return .image(image) }
            guard !ext.isEmpty else { return .untyped }
            if ext.count <= 8, ext.allSatisfy({ $0 < 0x80 }) {
                // ASCII lowercasing is Unicode's on ASCII bytes; compared as a word, without a
                // lowercased string to make and hash for each URL (`webp` sources in a srcset).
                return Self.spelling(in: Self.otherKindSpellings, of: ext) != nil ? .other : .untyped
            }
            let lowercased = String(decoding: ext, as: UTF8.self).lowercased()
            return Self.otherKinds.contains(lowercased) ? .other : .untyped
        }
    }

    /// The name of an http(s) URL whose path names an enabled image `extension` (from ``pathKind(ofHTTPURL:)``).
    func name(forHTTPURL serializedURL: String, extension ext: String) -> LocalName {
        let digest = serializedURL.withUTF8Bytes { bytes in
            let end = bytes.firstOffset(of: UInt8(ascii: "#"), from: 0, before: bytes.count)
            return LocalName.Digest(sha256Of: UnsafeBufferPointer(rebasing: bytes[..<end]))
        }
        // Letters and digits (every extension in practice) are already inert.
        let isAlphanumeric = ext.withUTF8Bytes { $0.allSatisfy { $0.isASCIILetter || ($0 >= 0x30 && $0 <= 0x39) } }
        return LocalName(digest: digest, pathExtension: isAlphanumeric ? ext : LocalReferenceStyle.inert(ext), fanOut: fanOut)
    }
}
