extension BrowserURL {
    /// `string` taken apart without the parser, when it is an absolute http(s) URL that the URL
    /// Standard's parser gives back unchanged: ASCII that no encode set touches, no `%`, no
    /// fragment, no userinfo; a lowercase domain (``SimpleURLResolver``'s rule) or a canonical
    /// IPv4 address; a port only if it is not the scheme's default; a path with no dot segments.
    /// The downloader, the manifest and `<base>` handling read the rewriter's resolved URLs by the
    /// thousand, and the full parser cost several times more than the rest of their handling.
    static func plainHTTP(_ string: String) -> BrowserURL? {
        var contiguous = string
        return contiguous.withUTF8 { bytes -> BrowserURL? in
            guard bytes.count < 2048, bytes.count > 7, bytes[0] == UInt8(ascii: "h"), bytes[1] == UInt8(ascii: "t"),
                  bytes[2] == UInt8(ascii: "t"), bytes[3] == UInt8(ascii: "p") else { return nil }
            let secure = bytes[4] == UInt8(ascii: "s")
            let hostStart = secure ? 8 : 7
            guard bytes.count > hostStart, bytes[hostStart - 3] == UInt8(ascii: ":"), bytes[hostStart - 2] == UInt8(ascii: "/"),
                  bytes[hostStart - 1] == UInt8(ascii: "/") else { return nil }
            let plain = SimpleURLResolver.plain
            for byte in bytes where byte >= 128 || !plain[Int(byte)] { return nil }
            // The authority ends at the path, which a serialised http(s) URL always has.
            guard let pathStart = bytes[hostStart...].firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }),
                  bytes[pathStart] == UInt8(ascii: "/") else { return nil }
            let colon = bytes[hostStart..<pathStart].firstIndex(of: UInt8(ascii: ":"))
            let hostBytes = bytes[hostStart..<(colon ?? pathStart)]
            let host: Host
            if let address = Self.canonicalIPv4(hostBytes) {
                host = .ipv4(address)
            } else if SimpleURLResolver.isPlainDomain(hostBytes) {
                host = .domain(String(decoding: UnsafeBufferPointer(rebasing: hostBytes), as: UTF8.self))
            } else {
                return nil
            }
            var port: Int?
            if let colon {
                guard let value = Self.canonicalPort(bytes[(colon + 1)..<pathStart]), value != (secure ? 443 : 80) else { return nil }
                port = value
            }
            let queryMark = bytes[pathStart...].firstIndex(of: UInt8(ascii: "?"))
            let pathEnd = queryMark ?? bytes.count
            guard SimpleURLResolver.hasNoDotSegments(bytes[pathStart..<pathEnd]) else { return nil }
            func text(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
            var segments: [String] = []
            var segmentStart = pathStart + 1
            while true {
                let segmentEnd = bytes[segmentStart..<pathEnd].firstIndex(of: UInt8(ascii: "/")) ?? pathEnd
                segments.append(text(segmentStart..<segmentEnd))
                guard segmentEnd < pathEnd else { break }
                segmentStart = segmentEnd + 1
            }
            return BrowserURL(scheme: secure ? "https" : "http", host: host, port: port, path: segments,
                              query: queryMark.map { text(($0 + 1)..<bytes.count) }, serialized: string)
        }
    }

    /// Four decimal numbers of 0–255 without leading zeros: the form the IPv4 serialiser writes.
    private static func canonicalIPv4(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> UInt32? {
        var address: UInt32 = 0
        var parts = 0
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let partStart = index
            var value: UInt32 = 0
            while index < bytes.endIndex, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9"), index - partStart < 3 {
                value = value * 10 + UInt32(bytes[index] - UInt8(ascii: "0"))
                index += 1
            }
            let length = index - partStart
            guard length > 0, value <= 255, length == 1 || bytes[partStart] != UInt8(ascii: "0") else { return nil }
            address = address << 8 | value
            parts += 1
            if index == bytes.endIndex { break }
            guard bytes[index] == UInt8(ascii: "."), parts < 4 else { return nil }
            index += 1
            guard index < bytes.endIndex else { return nil }
        }
        return parts == 4 ? address : nil
    }

    /// A port as the serialiser writes it: 0–65535 in decimal without leading zeros.
    private static func canonicalPort(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 5, bytes.count == 1 || bytes.first != UInt8(ascii: "0") else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value <= 65535 ? value : nil
    }
}
