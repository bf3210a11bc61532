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
        let lastSegment = url.path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        let decoded = String(decoding: PercentEncoding.decode(Array(lastSegment.utf8)), as: UTF8.self)
        guard let dot = decoded.lastIndex(of: ".") else { return nil }
        let ext = decoded[decoded.index(after: dot)...].lowercased()
        return extensions.contains(ext) ? ext : nil
    }

    /// The file name (with its fan-out folder, if any) for an http(s) image URL, or nil when the
    /// URL is not http(s) or has no enabled image extension.
    public func localName(for url: WebURL) -> String? {
        guard let ext = imageExtension(of: url) else { return nil }
        let digest = SHA256.hash(data: Array(url.serializedWithoutFragment.utf8))
        let hex = digest.map { byte in
            let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f"]
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined()
        let name = hex + "." + ext
        return fanOut ? String(hex.prefix(2)) + "/" + name : name
    }
}
