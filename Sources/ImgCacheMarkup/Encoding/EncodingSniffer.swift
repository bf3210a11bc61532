/// The outcome of ``EncodingSniffer/sniff(_:transportLabel:)``.
struct SniffedEncoding: Sendable, Equatable {
    /// The encoding to read the page with.
    let encoding: HTMLEncoding
    /// Which step of the sniffing decided it.
    let source: EncodingSource
    /// Length of the byte order mark that starts the page: 0, 2 or 3. The mark belongs to neither
    /// the text nor its markup, so decoders skip it.
    let byteOrderMarkLength: Int
    /// Set when a declaration was overridden because the bytes disagree with it (e.g. a page that says gb2312
    /// but is valid UTF-8 with non-ASCII), or when a label is unknown. A human-readable sentence.
    let notices: [EncodingNotice]

    /// Creates a result, e.g. for an encoding the caller already knows.
    init(encoding: HTMLEncoding, source: EncodingSource, byteOrderMarkLength: Int = 0, notices: [EncodingNotice] = []) {
        self.encoding = encoding
        self.source = source
        self.byteOrderMarkLength = byteOrderMarkLength
        self.notices = notices
    }
}

/// Determines a page's encoding the way browsers do (the HTML Standard's "encoding sniffing
/// algorithm"), with one deliberate departure for declarations the bytes contradict.
enum EncodingSniffer {
    /// Browsers' order: BOM; then the caller's encoding (e.g. the HTTP Content-Type charset label); then a
    /// `<meta charset>`/`<meta http-equiv=Content-Type content="...charset=...">` found by the HTML
    /// Standard's "prescan a byte stream to determine its encoding" (first 1024 bytes, UTF-16
    /// declarations → UTF-8, x-user-defined → windows-1252); then UTF-8 when the bytes are valid UTF-8
    /// and contain non-ASCII; then windows-1252.
    ///
    /// Lying declarations: a declared (transport or meta) encoding other than UTF-8 is replaced by
    /// UTF-8, with source ``EncodingSource/utf8Detection`` and a warning, when the whole page is valid
    /// UTF-8 containing multi-byte sequences and reading it in the declared encoding would be odd:
    ///
    /// - For single-byte encodings (and UTF-16, ISO-2022-JP, x-user-defined, replacement) one
    ///   multi-byte sequence is enough: legacy Latin text is valid UTF-8 only if every accented
    ///   letter is followed by exactly the right symbol bytes ("Ã©"), which real text never does for
    ///   a whole page.
    /// - For the CJK multi-byte encodings a three- or four-byte sequence (U+0800 and up) is required.
    ///   Their two-byte characters fall into UTF-8's two-byte pattern often enough (GBK "某" is C4 B3)
    ///   that a short legacy page can be valid UTF-8 by accident, while CJK text written in UTF-8 is
    ///   made of three-byte sequences. A UTF-8 page with only Latin/Cyrillic non-ASCII text that is
    ///   mislabelled as a CJK encoding is therefore left as declared.
    ///
    /// Also, a transport label of UTF-16 is ignored (with a warning) when there is no BOM and no 0x00
    /// byte in the first 1024 bytes: UTF-16 markup is half zero bytes. Never crashes on any input.
    static func sniff(_ bytes: UnsafeBufferPointer<UInt8>, transportLabel: String?) -> SniffedEncoding {
        if let (encoding, length) = byteOrderMark(bytes) {
            return SniffedEncoding(encoding: encoding, source: .byteOrderMark, byteOrderMarkLength: length)
        }
        var warnings: [EncodingNotice] = []
        if let label = transportLabel.map(cleanedTransportLabel), !label.isEmpty {
            if let encoding = HTMLEncoding(label: label) {
                if encoding.isUTF16, !containsZeroByte(bytes, limit: MetaCharsetPrescan.byteLimit) {
                    warnings.append(.impossibleUTF16(label: label))
                } else {
                    return checkedDeclaration(encoding, label: label, source: .transport, bytes: bytes, warnings: warnings)
                }
            } else {
                warnings.append(.unknownTransportLabel(label))
            }
        }
        let prescan = MetaCharsetPrescan.scan(bytes)
        for label in prescan.unknownLabels {
            warnings.append(.unknownDeclaredLabel(label, .page))
        }
        if let encoding = prescan.encoding {
            return checkedDeclaration(encoding, label: prescan.label ?? encoding.name, source: .metaDeclaration, bytes: bytes,
                                      warnings: warnings)
        }
        let summary = UTF8Validation.scan(bytes)
        if summary.firstInvalidOffset == nil, summary.hasMultiByteSequence {
            return SniffedEncoding(encoding: .utf8, source: .utf8Detection, notices: warnings)
        }
        return SniffedEncoding(encoding: .windows1252, source: .defaultEncoding, notices: warnings)
    }

    /// The encoding and length of a byte order mark at the start of `bytes`.
    static func byteOrderMark(_ bytes: UnsafeBufferPointer<UInt8>) -> (encoding: HTMLEncoding, length: Int)? {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { return (.utf8, 3) }
        if bytes.count >= 2, bytes[0] == 0xFE, bytes[1] == 0xFF { return (.utf16BE, 2) }
        if bytes.count >= 2, bytes[0] == 0xFF, bytes[1] == 0xFE { return (.utf16LE, 2) }
        return nil
    }

    private static func checkedDeclaration(_ encoding: HTMLEncoding, label: String, source: EncodingSource,
                                           bytes: UnsafeBufferPointer<UInt8>, warnings: [EncodingNotice]) -> SniffedEncoding {
        guard encoding != .utf8 else {
            return SniffedEncoding(encoding: encoding, source: source, notices: warnings)
        }
        let summary = UTF8Validation.scan(bytes)
        let contradicted = summary.firstInvalidOffset == nil
            && (encoding.isCJKMultiByte ? summary.longSequences > 0 : summary.hasMultiByteSequence)
        guard contradicted else {
            return SniffedEncoding(encoding: encoding, source: source, notices: warnings)
        }
        let described = label.caseInsensitiveEquals(encoding.name) ? encoding.name : "\(label) (\(encoding.name))"
        return SniffedEncoding(encoding: .utf8, source: .utf8Detection,
                               notices: warnings + [.contradictedByUTF8(declared: described, byTransport: source == .transport)])
    }

    /// Strips what a Content-Type parameter value may still carry around the label: quotes.
    private static func cleanedTransportLabel(_ label: String) -> String {
        var scalars = Substring(label).unicodeScalars[...]
        while let first = scalars.first, first == "\"" || first == "'" || first == " " || first == "\t" {
            scalars.removeFirst()
        }
        while let last = scalars.last, last == "\"" || last == "'" || last == " " || last == "\t" {
            scalars.removeLast()
        }
        return String(String.UnicodeScalarView(scalars))
    }

    private static func containsZeroByte(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int) -> Bool {
        bytes.prefix(limit).contains(0)
    }

}

extension String {
    fileprivate func caseInsensitiveEquals(_ other: String) -> Bool {
        HTMLEncoding.normalizedLabel(self) == HTMLEncoding.normalizedLabel(other)
    }
}
