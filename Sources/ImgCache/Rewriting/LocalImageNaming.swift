import Crypto

/// Maps an absolute image URL to its file name inside the cache directory.
///
/// The name is the SHA-256 of the URL (without its fragment, which never changes what is fetched)
/// plus the URL's image extension, so the same URL gets the same file in every run and process,
/// and two URLs never share one. With fan-out, the first two hex digits name a subfolder.
public struct LocalImageNaming: Sendable, Hashable {
    /// Lowercase extensions, without dots, that count as images.
    public var extensions: Set<String>
    /// Whether names go into a two-hex-digit subfolder (`3f/3f2a….png`).
    public var fanOut: Bool

    /// The extensions imgcache localises unless told otherwise.
    public static let defaultExtensions: Set<String> = ["jpg", "jpeg", "png", "gif"]

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
    }

    /// The image extension of an http(s) URL's path (query and fragment ignored), lowercased,
    /// when it is one of `extensions`.
    public func imageExtension(of url: WebURL) -> String? {
        guard url.isHTTP else { return nil }
        return imageExtension(ofHTTPURL: url.serialized)
    }

    /// `imageExtension(of:)` for a serialised http(s) URL.
    func imageExtension(ofHTTPURL serializedURL: String) -> String? {
        // An http(s) URL serialises as scheme://authority/path?query#fragment, and its path
        // holds no raw `?` or `#`: the last segment can be read off the serialisation.
        let serialized = serializedURL.utf8
        let pathEnd = serialized.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? serialized.endIndex
        let beforeQuery = serialized[..<pathEnd]
        guard let slash = beforeQuery.lastIndex(of: UInt8(ascii: "/")) else { return nil }
        var segment = beforeQuery[beforeQuery.index(after: slash)...]
        if segment.contains(UInt8(ascii: "%")) {
            return imageExtension(ofSegment: PercentEncoding.decode(segment)[...])
        }
        guard let dot = segment.lastIndex(of: UInt8(ascii: ".")) else { return nil }
        segment = segment[segment.index(after: dot)...]
        return matchingExtension(Substring(segment))
    }

    private func imageExtension(ofSegment segment: ArraySlice<UInt8>) -> String? {
        guard let dot = segment.lastIndex(of: UInt8(ascii: ".")) else { return nil }
        return matchingExtension(Substring(decoding: segment[(dot + 1)...], as: UTF8.self))
    }

    private func matchingExtension(_ candidate: Substring) -> String? {
        // Extensions are short: compare without allocating unless it is a match.
        guard candidate.utf8.count <= 16 else { return nil }
        let ext = candidate.lowercased()
        return extensions.contains(ext) ? ext : nil
    }

    /// The file name (with its fan-out folder, if any) for an http(s) image URL, or nil when the
    /// URL is not http(s) or has no enabled image extension.
    public func localName(for url: WebURL) -> String? {
        name(for: url)?.string
    }

    func name(for url: WebURL) -> LocalName? {
        url.isHTTP ? name(forHTTPURL: url.serialized) : nil
    }

    /// `name(for:)` for a serialised http(s) URL.
    func name(forHTTPURL serializedURL: String) -> LocalName? {
        guard let ext = imageExtension(ofHTTPURL: serializedURL) else { return nil }
        var hasher = SHA256()
        let serialized = serializedURL.utf8
        let withoutFragment = serialized[..<(serialized.firstIndex(of: UInt8(ascii: "#")) ?? serialized.endIndex)]
        if withoutFragment.withContiguousStorageIfAvailable({ hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }) == nil {
            hasher.update(data: Array(withoutFragment))
        }
        var digest = LocalName.Digest()
        for (i, byte) in hasher.finalize().enumerated() {
            digest[i] = byte
        }
        return LocalName(digest: digest, pathExtension: LocalReferenceStyle.inert(ext), fanOut: fanOut)
    }
}
