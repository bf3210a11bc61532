import ImgCacheSupport
extension BrowserURL {
    /// `string` taken apart without the parser, when it is an absolute http(s) URL that the URL
    /// Standard's parser gives back unchanged (``PlainURLText``: plain bytes, a scheme and
    /// authority kept as they are, a path with no dot segments). The downloader, the manifest and
    /// `<base>` handling read the rewriter's resolved URLs by the thousand, and the full parser
    /// cost several times more than the rest of their handling.
    package static func plainHTTP(_ string: String) -> BrowserURL? {
        return string.withUTF8Bytes { bytes -> BrowserURL? in
            guard bytes.count < 2048, let authority = PlainURLText.authority(of: bytes),
                  authority.end < bytes.count, bytes[authority.end] == UInt8(ascii: "/"),
                  PlainURLText.isPlain(bytes) else { return nil }
            let pathStart = authority.end
            let queryMark = bytes[pathStart...].firstIndex(of: UInt8(ascii: "?"))
            let pathEnd = queryMark ?? bytes.count
            guard PlainURLText.hasNoDotSegments(UnsafeBufferPointer(rebasing: bytes[pathStart..<pathEnd])) else { return nil }
            func text(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
            var segments: [String] = []
            // Sized once: grown segment by segment, the array was reallocated twice a URL.
            segments.reserveCapacity(bytes[pathStart..<pathEnd].count { $0 == UInt8(ascii: "/") })
            var segmentStart = pathStart + 1
            while true {
                let segmentEnd = bytes[segmentStart..<pathEnd].firstIndex(of: UInt8(ascii: "/")) ?? pathEnd
                segments.append(text(segmentStart..<segmentEnd))
                guard segmentEnd < pathEnd else { break }
                segmentStart = segmentEnd + 1
            }
            return BrowserURL(scheme: authority.isSecure ? "https" : "http", host: authority.host, port: authority.port,
                              path: segments, query: queryMark.map { text(($0 + 1)..<bytes.count) }, serialized: string)
        }
    }
}
