import ImgCacheSupport
import ImgCacheURLs
/// A URL found in CSS: where its text is and what it says once CSS escapes are undone.
package struct CSSURLToken: Equatable, Sendable {
    /// Scalar range of the URL's characters (inside the quotes, or the unquoted run).
    package let range: Range<Int>
    /// The URL with CSS escapes decoded.
    package let value: String
    /// True for the URL of an `@import`: a stylesheet, never an image.
    var isImport = false
    /// True inside an `@font-face` block: a font, never an image.
    var inFontFace = false
    /// The property whose value holds the URL (lowercase, e.g. `background-image`), when the URL
    /// stands in a declaration.
    package var property: String?

    /// Whether the URL is a stylesheet's or a font's rather than (possibly) an image's.
    package var isNeverImage: Bool { isImport || inFontFace }
}

/// A unit of CSS text as ``CSSURLScanner`` reads it: a Unicode scalar of decoded text, or a byte of
/// raw text known to be ASCII, which is then scanned where it lies instead of being widened into
/// scalars first (a page's style sheets run to megabytes, nearly always ASCII).
package protocol CSSTextUnit {
    var scalar: Unicode.Scalar { get }
    /// The string of a run of units.
    static func string<Units: Collection<Self>>(_ units: Units) -> String
}

extension Unicode.Scalar: CSSTextUnit {
    package var scalar: Unicode.Scalar { self }

    package static func string<Units: Collection<Unicode.Scalar>>(_ units: Units) -> String {
        String(scalars: ArraySlice(units))
    }
}

extension UInt8: CSSTextUnit {
    /// Only ASCII bytes are scanned as units.
    package var scalar: Unicode.Scalar { Unicode.Scalar(self) }

    package static func string<Units: Collection<UInt8>>(_ units: Units) -> String {
        String(decoding: units, as: UTF8.self)
    }
}

/// Finds the image URLs of a piece of CSS: `url(...)` and the strings or `url()`s inside
/// `image-set(...)` / `-webkit-image-set(...)`. Skips comments and other strings, the way the CSS
/// tokenizer sees them, and marks the URLs of `@import` and of `@font-face` blocks (a stylesheet or
/// a font, never an image). Each URL also carries the property it is a value of.
package enum CSSURLScanner {
    private static func isWhitespace(_ s: Unicode.Scalar) -> Bool {
        s == " " || s == "\t" || s == "\n" || s == "\u{0C}" || s == "\r"
    }

    /// The ASCII name characters (letters, digits, `-`, `_`) as bits: bit k of the first mask is
    /// the character k, of the second k + 64. Tested once per character of every style sheet.
    private static let nameCharactersBelow64: UInt64 = 0x03FF_2000_0000_0000
    private static let nameCharactersFrom64: UInt64 = 0x07FF_FFFE_87FF_FFFE

    /// The characters that change what the scan knows once a declaration has begun: comments,
    /// strings, escapes, at-rules, declaration and block ends, parentheses (`/ " ' \ @ ; { } ( )`),
    /// as bits like the name characters'.
    private static let significantBelow64: UInt64 = 1 << 0x22 | 1 << 0x27 | 1 << 0x28 | 1 << 0x29 | 1 << 0x2F | 1 << 0x3B
    private static let significantFrom64: UInt64 = 1 << (0x40 - 64) | 1 << (0x5C - 64) | 1 << (0x7B - 64) | 1 << (0x7D - 64)

    private static func isSignificant(_ s: Unicode.Scalar) -> Bool {
        isIn(s, below64: significantBelow64, from64: significantFrom64, orNonASCII: false)
    }

    /// Where the run of characters that change nothing (see `isSignificant`) that starts at
    /// `start` ends: eight at a time where the text is bytes. Style sheets run to megabytes, and
    /// a character at a time this was three quarters of scanning them.
    @inline(__always)
    private static func insignificantRunEnd<Text: RandomAccessCollection>(_ text: Text, from start: Int) -> Int
    where Text.Element: CSSTextUnit, Text.Index == Int {
        var i = start
        let n = text.count
        if Text.Element.self == UInt8.self, let wordsEnd = text.withContiguousStorageIfAvailable({ units -> Int in
            let raw = UnsafeRawBufferPointer(units)
            var i = start
            while i + 16 <= n {
                let found = significantBytes(raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self))
                if found.low != 0 { return i + found.low.trailingZeroBitCount / 8 }
                if found.high != 0 { return i + 8 + found.high.trailingZeroBitCount / 8 }
                i += 16
            }
            while i + 8 <= n {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                // Other bytes are read one at a time below (the bytes scanned are ASCII in practice).
                guard word.isASCII else { break }
                let found = significantBytes(word)
                if found != 0 { return i + found.trailingZeroBitCount / 8 }
                i += 8
            }
            return i
        }) {
            i = wordsEnd
        }
        while i < n, !isSignificant(text[i].scalar) { i += 1 }
        return i
    }

    /// The significant characters of 16 bytes (any bytes), each as a byte of all ones in one of
    /// two words, the first eight bytes in `low`. Sixteen at a time: in style sheets dense with
    /// rules a significant character comes every ten to twenty bytes, and the word-at-a-time
    /// test below took two or three words to find each.
    @inline(__always)
    private static func significantBytes(_ bytes: SIMD16<UInt8>) -> (low: UInt64, high: UInt64) {
        @inline(__always) func equal(_ character: UInt8) -> SIMDMask<SIMD16<Int8>> {
            bytes .== SIMD16<UInt8>(repeating: character)
        }
        let found = equal(0x22) .| equal(0x27) .| equal(0x28) .| equal(0x29) .| equal(0x2F)
            .| equal(0x3B) .| equal(0x40) .| equal(0x5C) .| equal(0x7B) .| equal(0x7D)
        // A mask's lanes are bytes of all ones or zeros.
        let words = unsafeBitCast(found, to: (UInt64, UInt64).self)
        return (UInt64(littleEndian: words.0), UInt64(littleEndian: words.1))
    }

    /// The top bit set in each byte of an ASCII word that is a significant character. (Adding
    /// 0x7F to an ASCII byte sets its top bit unless the byte is 0, and never carries out of it:
    /// so after `^ c` the top bit stays clear exactly where the byte was `c`.)
    @inline(__always)
    private static func significantBytes(_ word: UInt64) -> UInt64 {
        @inline(__always) func differs(_ character: UInt8) -> UInt64 {
            (word ^ 0x0101_0101_0101_0101 &* UInt64(character)) &+ 0x7F7F_7F7F_7F7F_7F7F
        }
        let differsFromAll = differs(0x22) & differs(0x27) & differs(0x28) & differs(0x29) & differs(0x2F)
            & differs(0x3B) & differs(0x40) & differs(0x5C) & differs(0x7B) & differs(0x7D)
        return ~differsFromAll & 0x8080_8080_8080_8080
    }

    private static func isNameCharacter(_ s: Unicode.Scalar) -> Bool {
        isIn(s, below64: nameCharactersBelow64, from64: nameCharactersFrom64, orNonASCII: true)
    }

    /// Whether `s` is in the set of ASCII characters whose bits the two masks hold (bit k of
    /// `below64` for the character k, of `from64` for k + 64), or else non-ASCII when that counts.
    @inline(__always)
    private static func isIn(_ s: Unicode.Scalar, below64: UInt64, from64: UInt64, orNonASCII: Bool) -> Bool {
        let value = s.value
        if value < 64 { return below64 >> UInt64(value) & 1 != 0 }
        if value < 128 { return from64 >> UInt64(value - 64) & 1 != 0 }
        return orNonASCII
    }

    /// The URLs of the CSS in `raw`, bytes in `encoding` (with HTML character references, as in a
    /// `style` attribute, when `characterReferences`), each handed to `body` in the order of the
    /// text with the range of bytes it takes, counted from `offset` (where `raw` starts in its
    /// file). Plain ASCII, nearly all CSS, is scanned where it lies; other text is decoded first.
    static func scan(raw: UnsafeBufferPointer<UInt8>, at offset: Int, encoding: HTMLEncoding, characterReferences: Bool,
                     _ body: (consuming CSSURLToken, _ raw: Range<Int>) -> Void) {
        if encoding.isASCIICompatible, DecodedText.isPlainASCII(raw, ampersandMatters: characterReferences) {
            scan(raw) { token in
                let range = offset + token.range.lowerBound..<offset + token.range.upperBound
                body(token, range)
            }
            return
        }
        let text = DecodedText.decode(raw, encoding: encoding, characterReferences: characterReferences)
        scan(text.scalars) { token in
            let range = text.rawRange(of: token.range)
            body(token, offset + range.lowerBound..<offset + range.upperBound)
        }
    }

    private static func isHexDigit(_ s: Unicode.Scalar) -> Bool {
        (s >= "0" && s <= "9") || (s >= "a" && s <= "f") || (s >= "A" && s <= "F")
    }

    package static func scan<Text: RandomAccessCollection>(_ text: Text) -> [CSSURLToken] where Text.Element: CSSTextUnit, Text.Index == Int {
        var tokens: [CSSURLToken] = []
        scan(text) { tokens.append($0) }
        return tokens
    }

    /// ``scan(_:)``, each URL handed to `body` as it is found: a page's style sheets hold
    /// thousands, and an array of them was copied into another and again out of it.
    static func scan<Text: RandomAccessCollection>(_ text: Text, _ body: (consuming CSSURLToken) -> Void)
    where Text.Element: CSSTextUnit, Text.Index == Int {
        var i = 0
        let n = text.count
        // Depth of open parentheses and the depths at which an image-set() was opened.
        var depth = 0
        var imageSetDepths: [Int] = []
        var skipUntilSemicolon = false
        // Blocks: how deep, and the depth at which an @font-face block was opened.
        var braceDepth = 0
        var fontFaceDepth: Int?
        var fontFacePending = false
        // Declarations: where the one being read began (after `;`, `{` or `}`, or at the start,
        // where a style attribute's declaration list begins). Its property's name is read from
        // there only for a declaration that holds a URL: most declarations hold none, and a
        // page's style sheets hold thousands. Nil until read; then the name, if it has one.
        var declarationStart = 0
        var property: String??
        func found(_ token: CSSURLToken) {
            var token = token
            token.inFontFace = fontFaceDepth != nil
            if property == nil { property = .some(propertyName(text, from: declarationStart)) }
            token.property = property!
            body(token)
        }
        while i < n {
            // Only the significant characters change anything: pass over the rest without
            // reading them one by one below.
            let runStart = i
            i = insignificantRunEnd(text, from: i)
            guard i < n else { break }
            let c = text[i].scalar
            if c == "(" {
                // A name matters only right before `(` (a function): read it from its start.
                var nameStart = i
                while nameStart > runStart, isNameCharacter(text[nameStart - 1].scalar) { nameStart -= 1 }
                if nameStart < i {
                    // Function names are ASCII case-insensitive.
                    let name = text[nameStart..<i]
                    if equalsASCIICaseInsensitive(name, "url") {
                        let (token, next) = readURLFunction(text, from: i + 1)
                        if var token {
                            token.isImport = skipUntilSemicolon
                            found(token)
                        }
                        i = next
                        continue
                    }
                    depth += 1
                    if equalsASCIICaseInsensitive(name, "image-set") || equalsASCIICaseInsensitive(name, "-webkit-image-set") {
                        imageSetDepths.append(depth)
                    }
                    i += 1
                    continue
                }
            }
            if c == "/", i + 1 < n, text[i + 1].scalar == "*" {
                i += 2
                while i + 1 < n, !(text[i].scalar == "*" && text[i + 1].scalar == "/") { i += 1 }
                i = min(n, i + 2)
                continue
            }
            if c == "\"" || c == "'" {
                // Only a string of @import or image-set() is a URL; any other is skipped unread.
                let isURL = skipUntilSemicolon || imageSetDepths.last == depth
                let (range, value, next) = readString(text, from: i, keepingValue: isURL)
                if skipUntilSemicolon {
                    found(CSSURLToken(range: range, value: value, isImport: true))
                } else if isURL {
                    found(CSSURLToken(range: range, value: value))
                }
                i = next
                continue
            }
            if c == "\\" {
                i = min(n, i + 2)
                continue
            }
            if c == "@" {
                let nameStart = i + 1
                var j = nameStart
                while j < n, isNameCharacter(text[j].scalar) { j += 1 }
                // At-rule names are ASCII case-insensitive.
                if equalsASCIICaseInsensitive(text[nameStart..<j], "import") {
                    skipUntilSemicolon = true
                } else if equalsASCIICaseInsensitive(text[nameStart..<j], "font-face") {
                    fontFacePending = true
                }
                i = j
                continue
            }
            if c == ";" || c == "{" || c == "}" {
                skipUntilSemicolon = false
                if c == "{" {
                    braceDepth += 1
                    if fontFacePending { fontFaceDepth = braceDepth }
                } else if c == "}" {
                    if fontFaceDepth == braceDepth { fontFaceDepth = nil }
                    braceDepth = max(0, braceDepth - 1)
                }
                if c != ";" { fontFacePending = false }
                declarationStart = i + 1
                property = nil
                i += 1
                continue
            }
            if c == "(" {
                depth += 1
                i += 1
                continue
            }
            if c == ")" {
                if let last = imageSetDepths.last, last == depth { imageSetDepths.removeLast() }
                depth = max(0, depth - 1)
                i += 1
                continue
            }
            i += 1
        }
    }

    /// The property a declaration that starts at `start` gives a value to, lowercase: its first
    /// name when `:` follows it, after nothing but blanks, comments, escapes and parentheses
    /// (which is how the scan read a declaration's start when it read every character).
    private static func propertyName<Text: RandomAccessCollection>(_ text: Text, from start: Int) -> String?
    where Text.Element: CSSTextUnit, Text.Index == Int {
        let n = text.count
        var i = start
        while i < n {
            let c = text[i].scalar
            if isNameCharacter(c) {
                var j = i
                while j < n, isNameCharacter(text[j].scalar) { j += 1 }
                var k = j
                while k < n, isWhitespace(text[k].scalar) { k += 1 }
                return k < n && text[k].scalar == ":" ? asciiLowercased(text[i..<j]) : nil
            }
            if c == "/", i + 1 < n, text[i + 1].scalar == "*" {
                i += 2
                while i + 1 < n, !(text[i].scalar == "*" && text[i + 1].scalar == "/") { i += 1 }
                i = min(n, i + 2)
            } else if c == "\\" {
                i = min(n, i + 2)
            } else if c == "(" || c == ")" || isWhitespace(c) {
                i += 1
            } else {
                return nil
            }
        }
        return nil
    }

    /// `name` equals `lowercase` (ASCII, lowercase) when ASCII letters are compared without case.
    private static func equalsASCIICaseInsensitive<Name: Collection>(_ name: Name, _ lowercase: StaticString) -> Bool
    where Name.Element: CSSTextUnit {
        guard name.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        var k = 0
        for unit in name {
            let value = unit.scalar.value
            let lowered = value >= 0x41 && value <= 0x5A ? value | 0x20 : value
            if lowered != UInt32(expected[k]) { return false }
            k += 1
        }
        return true
    }

    /// The text with ASCII letters lowercased, as CSS compares property names.
    private static func asciiLowercased<Name: Collection>(_ name: Name) -> String where Name.Element: CSSTextUnit {
        // Nearly every name is ASCII: its bytes go straight into the string's storage (an array of
        // scalars made first showed in rewriting pages whose style sheets are dense in URLs).
        if name.allSatisfy({ $0.scalar.isASCII }) {
            return String(unsafeUninitializedCapacity: name.count) { buffer in
                for (index, unit) in name.enumerated() {
                    let value = UInt8(truncatingIfNeeded: unit.scalar.value)
                    buffer[index] = value >= 0x41 && value <= 0x5A ? value | 0x20 : value
                }
                return name.count
            }
        }
        return String(scalars: name.map { unit in
            let scalar = unit.scalar
            return scalar.value >= 0x41 && scalar.value <= 0x5A ? Unicode.Scalar(UInt8(scalar.value | 0x20)) : scalar
        }[...])
    }

    /// A token's value as its escapes decode it, built as it is read: the text is copied only
    /// once an escape is met, and spelled out once, at the end.
    private struct ValueBuilder {
        let keeping: Bool
        /// The value up to `runStart`, once it differs from the text (after an escape).
        private var unescaped: [Unicode.Scalar]?
        private var runStart: Int

        init(keeping: Bool, from start: Int) {
            self.keeping = keeping
            runStart = start
        }

        /// The text from the current run's start to `index` belongs to the value; `scalar`
        /// (if any) follows it, and the next run starts at `next`.
        mutating func escape<Text: RandomAccessCollection>(_ text: Text, at index: Int, decodedTo scalar: Unicode.Scalar?, next: Int)
        where Text.Element: CSSTextUnit, Text.Index == Int {
            if keeping {
                if unescaped == nil { unescaped = [] }
                unescaped!.append(contentsOf: text[runStart..<index].lazy.map(\.scalar))
                if let scalar { unescaped!.append(scalar) }
            }
            runStart = next
        }

        func value<Text: RandomAccessCollection>(_ text: Text, upTo end: Int) -> String
        where Text.Element: CSSTextUnit, Text.Index == Int {
            guard keeping else { return "" }
            guard var unescaped else { return Text.Element.string(text[runStart..<end]) }
            unescaped.append(contentsOf: text[runStart..<end].lazy.map(\.scalar))
            return String(scalars: unescaped[...])
        }
    }

    /// Reads a quoted string starting at its quote; returns its content range, decoded value (empty
    /// unless `keepingValue`) and the next index.
    private static func readString<Text: RandomAccessCollection>(_ text: Text, from start: Int, keepingValue: Bool = true)
        -> (Range<Int>, String, Int) where Text.Element: CSSTextUnit, Text.Index == Int {
        let quote = text[start].scalar
        var i = start + 1
        var value = ValueBuilder(keeping: keepingValue, from: i)
        let n = text.count
        while i < n {
            let c = text[i].scalar
            if c == quote {
                return (start + 1..<i, value.value(text, upTo: i), i + 1)
            }
            if c == "\n" {
                // An unescaped newline ends a string as a bad string.
                return (start + 1..<i, value.value(text, upTo: i), i)
            }
            if c == "\\" {
                if i + 1 < n, text[i + 1].scalar == "\n" {
                    value.escape(text, at: i, decodedTo: nil, next: i + 2)
                    i += 2
                    continue
                }
                let (scalar, next) = readEscape(text, from: i + 1)
                value.escape(text, at: i, decodedTo: scalar, next: next)
                i = next
                continue
            }
            i += 1
        }
        return (start + 1..<n, value.value(text, upTo: n), n)
    }

    /// Reads the argument of `url(`: a quoted string or an unquoted URL token, up to `)`.
    private static func readURLFunction<Text: RandomAccessCollection>(_ text: Text, from start: Int) -> (CSSURLToken?, Int)
    where Text.Element: CSSTextUnit, Text.Index == Int {
        let n = text.count
        var i = start
        while i < n, isWhitespace(text[i].scalar) { i += 1 }
        guard i < n else { return (nil, n) }
        if text[i].scalar == "\"" || text[i].scalar == "'" {
            let (range, value, next) = readString(text, from: i)
            var j = next
            while j < n, text[j].scalar != ")" { j += 1 }
            return (CSSURLToken(range: range, value: value), min(n, j + 1))
        }
        let tokenStart = i
        var value = ValueBuilder(keeping: true, from: i)
        while i < n {
            let c = text[i].scalar
            if c == ")" || isWhitespace(c) { break }
            if c == "\"" || c == "'" || c == "(" {
                // A bad URL token: browsers load nothing; skip to the closing parenthesis.
                while i < n, text[i].scalar != ")" { i += 1 }
                return (nil, min(n, i + 1))
            }
            if c == "\\" {
                let (scalar, next) = readEscape(text, from: i + 1)
                value.escape(text, at: i, decodedTo: scalar, next: next)
                i = next
                continue
            }
            i += 1
        }
        let tokenEnd = i
        while i < n, isWhitespace(text[i].scalar) { i += 1 }
        guard i >= n || text[i].scalar == ")" else {
            while i < n, text[i].scalar != ")" { i += 1 }
            return (nil, min(n, i + 1))
        }
        guard tokenEnd > tokenStart else { return (nil, min(n, i + 1)) }
        return (CSSURLToken(range: tokenStart..<tokenEnd, value: value.value(text, upTo: tokenEnd)), min(n, i + 1))
    }

    /// Reads a CSS escape after its backslash: up to six hex digits and one whitespace, or one character.
    private static func readEscape<Text: RandomAccessCollection>(_ text: Text, from start: Int) -> (Unicode.Scalar?, Int)
    where Text.Element: CSSTextUnit, Text.Index == Int {
        let n = text.count
        guard start < n else { return ("\u{FFFD}", n) }
        guard isHexDigit(text[start].scalar) else { return (text[start].scalar, start + 1) }
        var i = start
        var code: UInt32 = 0
        while i < n, i - start < 6, isHexDigit(text[i].scalar) {
            code = code * 16 + UInt32(Character(text[i].scalar).hexDigitValue ?? 0)
            i += 1
        }
        if i < n, isWhitespace(text[i].scalar) { i += 1 }
        let scalar = (code == 0 || code > 0x10FFFF || (0xD800...0xDFFF).contains(code)) ? "\u{FFFD}" : Unicode.Scalar(code)
        return (scalar, i)
    }
}
