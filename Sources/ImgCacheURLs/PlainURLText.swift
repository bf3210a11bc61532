/// URL text that the URL Standard's parser keeps exactly as it is, recognised on its bytes: what
/// lets ``SimpleURLResolver`` and ``BrowserURL`` answer the commonest URLs of pages without the
/// parser. Tests hold both to the parser's answers.
package enum PlainURLText {
    /// What the one-pass readers need to know of each of the 256 byte values, one byte each, read
    /// through an unchecked pointer: a `[Bool]` looked up behind a bounds check and a `< 128` test
    /// cost far more a byte, on every absolute URL of a page.
    private enum ByteClass {
        /// In the path: a byte that every part of a URL keeps as it is (no encode set of the URL
        /// Standard contains it, for path, query or fragment of a special URL) and that ends
        /// nothing. In the host: a lowercase letter, a digit or `-`.
        static let ordinary: UInt8 = 0
        static let dot: UInt8 = 1
        static let slash: UInt8 = 2
        static let question: UInt8 = 3
        /// In a host, any other byte (`:`, an uppercase letter, other punctuation, non-ASCII):
        /// looked at on its own.
        static let hostOther: UInt8 = 4
        /// Changed by the parser (`%`, `#`, space, non-ASCII, …): never plain.
        static let changed: UInt8 = 5
    }

    /// ``ByteClass`` of each byte in a path, query or fragment.
    private static let pathClasses: [UInt8] = {
        var table = [UInt8](repeating: ByteClass.changed, count: 256)
        for byte in Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/!$&()*+,;=:@?".utf8) {
            table[Int(byte)] = ByteClass.ordinary
        }
        table[Int(UInt8(ascii: "."))] = ByteClass.dot
        table[Int(UInt8(ascii: "/"))] = ByteClass.slash
        table[Int(UInt8(ascii: "?"))] = ByteClass.question
        return table
    }()

    /// ``ByteClass`` of each byte in a host: `ordinary` only for what a plain domain's labels hold.
    private static let hostClasses: [UInt8] = {
        var table = [UInt8](repeating: ByteClass.hostOther, count: 256)
        for byte in Array("abcdefghijklmnopqrstuvwxyz0123456789-".utf8) { table[Int(byte)] = ByteClass.ordinary }
        table[Int(UInt8(ascii: "."))] = ByteClass.dot
        table[Int(UInt8(ascii: "/"))] = ByteClass.slash
        table[Int(UInt8(ascii: "?"))] = ByteClass.question
        return table
    }()

    /// Whether every byte is one the parser keeps as it is (so no `%`, `#`, space or non-ASCII).
    package static func isPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        pathClasses.withUnsafeBufferPointer { classes in
            for byte in bytes where classes[Int(byte)] == ByteClass.changed { return false }
            return true
        }
    }

    /// The scheme and authority of an absolute http(s) URL, when the parser keeps them as they are.
    struct Authority {
        var isSecure: Bool
        var host: BrowserURL.Host
        /// Nil for the scheme's default port, which is never written.
        var port: Int?
        /// Where the authority ends: at the path's `/`, a `?`, or the end of the text.
        var end: Int
    }

    /// `http://` or `https://`, then a lowercase domain that is neither an IP address nor
    /// punycode, or a canonical IPv4 address, and a port only if it is not the scheme's default;
    /// no userinfo. Nil for anything else.
    static func authority(of bytes: UnsafeBufferPointer<UInt8>) -> Authority? {
        guard let parts = authorityParts(of: bytes) else { return nil }
        let host: BrowserURL.Host = if let address = parts.ipv4 {
            .ipv4(address)
        } else {
            .domain(String(decoding: UnsafeBufferPointer(rebasing: bytes[parts.host]), as: UTF8.self))
        }
        return Authority(isSecure: parts.isSecure, host: host, port: parts.port, end: parts.end)
    }

    /// Where the authority of ``authority(of:)`` ends, without spelling out its host: all that a
    /// URL that stays as written needs.
    package static func authorityEnd(of bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        authorityParts(of: bytes)?.end
    }

    private static func authorityParts(of bytes: UnsafeBufferPointer<UInt8>)
        -> (isSecure: Bool, host: Range<Int>, ipv4: UInt32?, port: Int?, end: Int)? {
        let isSecure: Bool
        if startsWith("http://", bytes) {
            isSecure = false
        } else if startsWith("https://", bytes) {
            isSecure = true
        } else {
            return nil
        }
        let hostStart = isSecure ? 8 : 7
        // One pass to the authority's end, reading the host's labels as it goes: asked of every
        // absolute URL of a page (every srcset candidate, often), five searches over the host cost
        // as much as the rest of resolving it.
        var index = hostStart
        var colon: Int?
        var labelStart = hostStart
        var lastLabelFirst: UInt8?
        // Bytes the parser keeps in a domain, no empty label (a leading dot or two in a row), no `xn--` label.
        var isPlainDomain = true
        hostClasses.withUnsafeBufferPointer { classes in
            while index < bytes.count {
                let byteClass = classes[Int(bytes[index])]
                if byteClass == ByteClass.ordinary {
                    index &+= 1
                    continue
                }
                if byteClass == ByteClass.slash || byteClass == ByteClass.question { return }
                if byteClass == ByteClass.dot {
                    if index == labelStart { isPlainDomain = false }
                    closeLabel(bytes, labelStart..<index, &lastLabelFirst, &isPlainDomain)
                    labelStart = index + 1
                } else if bytes[index] == UInt8(ascii: ":") {
                    colon = index
                    closeLabel(bytes, labelStart..<index, &lastLabelFirst, &isPlainDomain)
                    // The port: only its end is looked for here.
                    index += 1
                    while index < bytes.count, bytes[index] != UInt8(ascii: "/"), bytes[index] != UInt8(ascii: "?") { index += 1 }
                    return
                } else {
                    isPlainDomain = false
                }
                index += 1
            }
        }
        let end = index
        let hostEnd = colon ?? end
        if colon == nil { closeLabel(bytes, labelStart..<end, &lastLabelFirst, &isPlainDomain) }
        guard let lastLabelFirst else { return nil }
        // A last label that starts with a digit makes the host an IPv4 address (or a failure):
        // kept as it is only in the serialiser's own form.
        var ipv4: UInt32?
        if lastLabelFirst >= UInt8(ascii: "0"), lastLabelFirst <= UInt8(ascii: "9") {
            guard let address = canonicalIPv4(bytes[hostStart..<hostEnd]) else { return nil }
            ipv4 = address
        } else {
            guard isPlainDomain, bytes[hostStart] != UInt8(ascii: "-") else { return nil }
        }
        var port: Int?
        if let colon {
            guard let value = canonicalPort(bytes[(colon + 1)..<end]), value != (isSecure ? 443 : 80) else { return nil }
            port = value
        }
        return (isSecure, hostStart..<hostEnd, ipv4, port, end)
    }

    /// Notes a label of the host that has ended: `xn--` labels are checked by IDNA (the full
    /// parser's job), and the last non-empty label's first byte tells an IPv4 address.
    private static func closeLabel(_ bytes: UnsafeBufferPointer<UInt8>, _ label: Range<Int>, _ lastLabelFirst: inout UInt8?,
                                   _ isPlainDomain: inout Bool) {
        guard !label.isEmpty else { return }
        let start = label.lowerBound
        if label.count >= 4, bytes[start] == UInt8(ascii: "x"), bytes[start + 1] == UInt8(ascii: "n"),
           bytes[start + 2] == UInt8(ascii: "-"), bytes[start + 3] == UInt8(ascii: "-") { isPlainDomain = false }
        lastLabelFirst = bytes[start]
    }

    /// `isPlain(bytes) && hasNoDotSegments(bytes)`, read in one pass.
    package static func isPlainWithoutDotSegments(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        keepsPath(bytes, checkingBytes: true)
    }

    /// True when no path segment (before any `?`) is `.` or `..`, which the parser would remove.
    package static func hasNoDotSegments(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        keepsPath(bytes, checkingBytes: false)
    }

    /// Whether no path segment before any `?` is `.` or `..` and, when `checkingBytes`, every
    /// byte (query included) is one ``isPlain(_:)`` takes.
    @inline(__always)
    private static func keepsPath(_ bytes: UnsafeBufferPointer<UInt8>, checkingBytes: Bool) -> Bool {
        pathClasses.withUnsafeBufferPointer { classes in
            var segmentLength = 0
            var dots = 0
            var index = 0
            while index < bytes.count {
                // A run of ordinary bytes first, in a loop of its own: most of a path is one.
                let runStart = index
                while index < bytes.count, classes[Int(bytes[index])] == ByteClass.ordinary { index &+= 1 }
                segmentLength &+= index &- runStart
                guard index < bytes.count else { break }
                let byteClass = classes[Int(bytes[index])]
                index &+= 1
                if byteClass == ByteClass.dot {
                    segmentLength += 1
                    dots += 1
                } else if byteClass == ByteClass.slash || byteClass == ByteClass.question {
                    if segmentLength > 0, segmentLength == dots, dots <= 2 { return false }
                    segmentLength = 0
                    dots = 0
                    if byteClass == ByteClass.question {
                        // The query holds no segments: only its bytes matter, when they are checked.
                        guard checkingBytes else { return true }
                        while index < bytes.count {
                            if classes[Int(bytes[index])] == ByteClass.changed { return false }
                            index += 1
                        }
                        return true
                    }
                } else if checkingBytes {
                    return false
                } else {
                    segmentLength += 1
                }
            }
            return !(segmentLength > 0 && segmentLength == dots && dots <= 2)
        }
    }

    private static func startsWith(_ prefix: StaticString, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        prefix.withUTF8Buffer { prefix in
            guard bytes.count >= prefix.count else { return false }
            for index in prefix.indices where bytes[index] != prefix[index] { return false }
            return true
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
