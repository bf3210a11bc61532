import ImgCacheSupport
/// The HTML Standard's "prescan a byte stream to determine its encoding": finds a
/// `<meta charset>` or `<meta http-equiv=Content-Type content="...charset=...">` in the first
/// 1024 bytes, skipping comments and the attributes of other tags the way a browser's prescan does,
/// and falls back to an `<?xml ... encoding="...">` declaration when no meta is found.
@_spi(Fuzzing) public enum MetaCharsetPrescan {
    /// How many bytes are looked at, as browsers do; a declaration that does not end inside them
    /// is not seen.
    @_spi(Fuzzing) public static let byteLimit = 1024

    /// The declared encoding, or nil when there is none. A meta declaring UTF-16 yields UTF-8 and
    /// one declaring x-user-defined yields windows-1252, as in browsers (a page that can be read as
    /// ASCII to find the tag cannot be UTF-16). A UTF-16 "<?x" prefix yields UTF-16LE/BE.
    @_spi(Fuzzing) public static func prescan(_ bytes: UnsafeBufferPointer<UInt8>) -> HTMLEncoding? {
        scan(bytes).encoding
    }

    /// The prescan's answer plus the labels it skipped because they name no known encoding.
    struct Result {
        var encoding: HTMLEncoding?
        /// The label as the page wrote it (lowercased), for messages.
        var label: String?
        var unknownLabels: [String] = []
    }

    static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Result {
        let window = UnsafeBufferPointer(rebasing: bytes[0..<min(bytes.count, byteLimit)])
        var scanner = Scanner(bytes: window)
        do throws(Scanner.OutOfBytes) {
            let encoding = try scanner.run()
            return Result(encoding: encoding, label: scanner.declaredLabel, unknownLabels: scanner.unknownLabels)
        } catch {
            // Running out of bytes is the algorithm's normal end: then an XML declaration counts.
            var result = Result(unknownLabels: scanner.unknownLabels)
            if let label = xmlDeclarationLabel(window) {
                if let encoding = HTMLEncoding(label: label) {
                    result.encoding = encoding.isUTF16 ? .utf8 : encoding
                    result.label = label
                } else {
                    result.unknownLabels.append(label)
                }
            }
            return result
        }
    }

    /// "get an XML encoding": the label in `<?xml ... encoding="label"` at the very start, if any.
    static func xmlDeclarationLabel(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let prefix: [UInt8] = Array("<?xml".utf8)
        guard bytes.count >= prefix.count, bytes.prefix(prefix.count).elementsEqual(prefix) else { return nil }
        guard let declarationEnd = bytes.firstIndex(of: 0x3E) else { return nil }
        let keyword: [UInt8] = Array("encoding".utf8)
        var position = 0
        var found = false
        while position + keyword.count <= declarationEnd {
            if bytes[position..<(position + keyword.count)].elementsEqual(keyword) {
                found = true
                break
            }
            position += 1
        }
        guard found else { return nil }
        position += keyword.count
        while position < declarationEnd, bytes[position] <= 0x20 { position += 1 }
        guard position < declarationEnd, bytes[position] == 0x3D else { return nil }
        position += 1
        while position < declarationEnd, bytes[position] <= 0x20 { position += 1 }
        guard position < declarationEnd, bytes[position] == 0x22 || bytes[position] == 0x27 else { return nil }
        let quote = bytes[position]
        position += 1
        guard let end = bytes[position..<declarationEnd].firstIndex(of: quote) else { return nil }
        let label = bytes[position..<end]
        guard !label.isEmpty, !label.contains(where: { $0 <= 0x20 }) else { return nil }
        return isomorphicDecode(label)
    }

    /// "extracting a character encoding from a meta element": the label after "charset=" in a
    /// content attribute such as "text/html; charset=Shift_JIS", or nil when there is none.
    static func charsetLabel(inContent value: [UInt8]) -> String? {
        let keyword: [UInt8] = Array("charset".utf8)
        var position = 0
        while true {
            guard let start = firstCaseInsensitiveMatch(of: keyword, in: value, from: position) else { return nil }
            position = start + keyword.count
            while position < value.count, value[position].isASCIIWhitespace { position += 1 }
            guard position < value.count, value[position] == 0x3D else { continue }
            position += 1
            while position < value.count, value[position].isASCIIWhitespace { position += 1 }
            guard position < value.count else { return nil }
            let first = value[position]
            if first == 0x22 || first == 0x27 {
                guard let close = value[(position + 1)...].firstIndex(of: first) else { return nil }
                return isomorphicDecode(value[(position + 1)..<close])
            }
            var end = position
            while end < value.count, !value[end].isASCIIWhitespace, value[end] != 0x3B { end += 1 }
            return isomorphicDecode(value[position..<end])
        }
    }

    private static func firstCaseInsensitiveMatch(of keyword: [UInt8], in value: [UInt8], from start: Int) -> Int? {
        guard value.count >= keyword.count else { return nil }
        var position = start
        while position + keyword.count <= value.count {
            var matches = true
            for k in 0..<keyword.count where value[position + k].asciiLowercased != keyword[k] {
                matches = false
                break
            }
            if matches { return position }
            position += 1
        }
        return nil
    }


    /// Bytes as Latin-1 code points, which is how the prescan turns attribute bytes into a label.
    static func isomorphicDecode(_ bytes: some Collection<UInt8>) -> String {
        var view = String.UnicodeScalarView()
        for byte in bytes { view.append(Unicode.Scalar(byte)) }
        return String(view)
    }
}

extension MetaCharsetPrescan {
    /// The prescan's state machine over the 1024-byte window. Every read past the window throws,
    /// which is how the algorithm's "abort when out of bytes" is expressed.
    struct Scanner {
        struct OutOfBytes: Error {}

        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0
        var unknownLabels: [String] = []
        var declaredLabel: String?

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        private func byte(_ at: Int) throws(OutOfBytes) -> UInt8 {
            guard at < bytes.count else { throw OutOfBytes() }
            return bytes[at]
        }

        private func peek(_ at: Int) -> UInt8? {
            at < bytes.count ? bytes[at] : nil
        }

        private static func isLetter(_ byte: UInt8?) -> Bool {
            byte?.isASCIILetter ?? false
        }

        private static func isSpaceOrSlash(_ byte: UInt8?) -> Bool {
            guard let byte else { return false }
            return byte.isASCIIWhitespace || byte == 0x2F
        }

        mutating func run() throws(OutOfBytes) -> HTMLEncoding {
            if bytes.count >= 6 {
                if bytes[0] == 0x3C, bytes[1] == 0, bytes[2] == 0x3F, bytes[3] == 0, bytes[4] == 0x78, bytes[5] == 0 {
                    return .utf16LE
                }
                if bytes[0] == 0, bytes[1] == 0x3C, bytes[2] == 0, bytes[3] == 0x3F, bytes[4] == 0, bytes[5] == 0x78 {
                    return .utf16BE
                }
            }
            while true {
                if try byte(position) == 0x3C {
                    let next = peek(position + 1)
                    if next == 0x21, peek(position + 2) == 0x2D, peek(position + 3) == 0x2D {
                        try skipComment()
                    } else if isMetaStart() {
                        position += 5
                        if let encoding = try metaDeclaration() { return encoding }
                    } else if Self.isLetter(next) || (next == 0x2F && Self.isLetter(peek(position + 2))) {
                        try skipTag()
                    } else if next == 0x21 || next == 0x2F || next == 0x3F {
                        position += 1
                        while try byte(position) != 0x3E { position += 1 }
                    }
                }
                position += 1
            }
        }

        /// Leaves `position` on the ">" of the first "-->" whose "--" may overlap the "<!--".
        private mutating func skipComment() throws(OutOfBytes) {
            position += 4
            while true {
                if try byte(position) == 0x3E, bytes[position - 1] == 0x2D, bytes[position - 2] == 0x2D { return }
                position += 1
            }
        }

        private func isMetaStart() -> Bool {
            let name: [UInt8] = [0x6D, 0x65, 0x74, 0x61]
            for k in 0..<4 {
                guard let b = peek(position + 1 + k), b.asciiLowercased == name[k] else { return false }
            }
            return Self.isSpaceOrSlash(peek(position + 5))
        }

        private mutating func skipTag() throws(OutOfBytes) {
            while true {
                let b = try byte(position)
                if b.isASCIIWhitespace || b == 0x3E { break }
                position += 1
            }
            while try attribute() != nil {}
        }

        /// The attributes of one `<meta`, judged as the algorithm's "processing" step does.
        private mutating func metaDeclaration() throws(OutOfBytes) -> HTMLEncoding? {
            enum Charset {
                case none
                case unknown
                case known(HTMLEncoding, label: String)
            }
            // A list, not a set: the window holds a few hundred attributes at most, and the
            // first set of byte arrays a run makes costs more than a page's meta tags.
            var seen: [[UInt8]] = []
            var gotPragma = false
            var needPragma: Bool?
            var charset = Charset.none
            while let (name, value) = try attribute() {
                guard !seen.contains(name) else { continue }
                seen.append(name)
                switch name {
                case Array("http-equiv".utf8):
                    if value == Array("content-type".utf8) { gotPragma = true }
                case Array("content".utf8):
                    guard case .none = charset, let label = MetaCharsetPrescan.charsetLabel(inContent: value) else { break }
                    if let encoding = HTMLEncoding(label: label) {
                        charset = .known(encoding, label: label)
                        needPragma = true
                    } else {
                        unknownLabels.append(label)
                    }
                case Array("charset".utf8):
                    let label = MetaCharsetPrescan.isomorphicDecode(value)
                    if let encoding = HTMLEncoding(label: label) {
                        charset = .known(encoding, label: label)
                    } else {
                        charset = .unknown
                        unknownLabels.append(label)
                    }
                    needPragma = false
                default:
                    break
                }
            }
            guard let needPragma, !needPragma || gotPragma, case .known(let encoding, let label) = charset else { return nil }
            declaredLabel = label.trimmingASCIIWhitespace
            if encoding.isUTF16 { return .utf8 }
            if encoding.kind == .xUserDefined { return .windows1252 }
            return encoding
        }

        /// "get an attribute": nil when there is none (at ">"); names and values come back with
        /// ASCII letters lowercased, as the algorithm compares them.
        private mutating func attribute() throws(OutOfBytes) -> (name: [UInt8], value: [UInt8])? {
            while Self.isSpaceOrSlash(try byte(position)) { position += 1 }
            if try byte(position) == 0x3E { return nil }
            var name: [UInt8] = []
            let value: [UInt8] = []
            // Name.
            while true {
                let b = try byte(position)
                if b == 0x3D, !name.isEmpty {
                    position += 1
                    return (name, try attributeValue())
                }
                if b.isASCIIWhitespace { break }
                if b == 0x2F || b == 0x3E { return (name, value) }
                name.append(b.asciiLowercased)
                position += 1
            }
            // Spaces between the name and a possible "=".
            while (try byte(position)).isASCIIWhitespace { position += 1 }
            guard try byte(position) == 0x3D else { return (name, value) }
            position += 1
            return (name, try attributeValue())
        }

        private mutating func attributeValue() throws(OutOfBytes) -> [UInt8] {
            while (try byte(position)).isASCIIWhitespace { position += 1 }
            var value: [UInt8] = []
            let first = try byte(position)
            if first == 0x22 || first == 0x27 {
                while true {
                    position += 1
                    let b = try byte(position)
                    if b == first {
                        position += 1
                        return value
                    }
                    value.append(b.asciiLowercased)
                }
            }
            if first == 0x3E { return value }
            value.append(first.asciiLowercased)
            position += 1
            while true {
                let b = try byte(position)
                if b.isASCIIWhitespace || b == 0x3E { return value }
                value.append(b.asciiLowercased)
                position += 1
            }
        }
    }
}
