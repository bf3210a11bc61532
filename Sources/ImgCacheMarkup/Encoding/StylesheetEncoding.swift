/// Determines a stylesheet's encoding the way browsers do (CSS Syntax, "determine the fallback
/// encoding"): a byte order mark; then an `@charset "label";` rule that starts the file, byte for
/// byte (a UTF-16 label there means UTF-8: the rule could only be read because the file is
/// ASCII-compatible); then the encoding of the page that links the stylesheet; then UTF-8.
///
/// Unlike pages, stylesheets are never sniffed for UTF-8 or defaulted to windows-1252.
package enum StylesheetEncoding {
    /// The bytes a `@charset` rule must start with, exactly: `@charset "`.
    private static let charsetPrefix = Array("@charset \"".utf8)
    /// CSS looks for the rule's end within the first 1024 bytes.
    private static let searchLimit = 1024

    /// - Parameters:
    ///   - bytes: the stylesheet.
    ///   - referringDocument: the encoding of the page that links it, when known.
    static func determine(_ bytes: UnsafeBufferPointer<UInt8>, referringDocument: HTMLEncoding?) -> SniffedEncoding {
        if let (encoding, length) = EncodingSniffer.byteOrderMark(bytes) {
            return SniffedEncoding(encoding: encoding, source: .byteOrderMark, byteOrderMarkLength: length)
        }
        var notices: [EncodingNotice] = []
        if let label = charsetLabel(bytes) {
            if let declared = HTMLEncoding(label: label) {
                let encoding = declared.isUTF16 ? HTMLEncoding.utf8 : declared
                return SniffedEncoding(encoding: encoding, source: .charsetRule)
            }
            notices = [.unknownDeclaredLabel(label, .stylesheet)]
        }
        if let referringDocument {
            // A UTF-16 page's stylesheet is still ASCII-compatible text; so is one linked from a
            // page the replacement encoding stands for.
            let encoding = referringDocument.isASCIICompatible ? referringDocument : .utf8
            return SniffedEncoding(encoding: encoding, source: .referringDocument, notices: notices)
        }
        return SniffedEncoding(encoding: .utf8, source: .cssDefault, notices: notices)
    }

    /// Whether the encoding of a linking page could matter for `bytes`: no byte order mark, no
    /// `@charset` rule, and some non-ASCII byte (ASCII reads the same in every encoding a
    /// stylesheet can fall back to).
    package static func needsReferringEncoding(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            EncodingSniffer.byteOrderMark(buffer) == nil && charsetLabel(buffer) == nil && buffer.contains { $0 >= 0x80 }
        }
    }

    /// The label of an `@charset "label";` that starts `bytes`, if the rule is complete within
    /// the first 1024 bytes.
    static func charsetLabel(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard bytes.count > charsetPrefix.count, bytes.starts(with: charsetPrefix) else { return nil }
        var end = charsetPrefix.count
        let limit = min(bytes.count, searchLimit)
        while end + 1 < limit {
            if bytes[end] == UInt8(ascii: "\""), bytes[end + 1] == UInt8(ascii: ";") {
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[charsetPrefix.count..<end]), as: UTF8.self)
            }
            // Only printable ASCII may stand in the label.
            guard bytes[end] >= 0x20, bytes[end] < 0x7F, bytes[end] != UInt8(ascii: "\"") else { return nil }
            end += 1
        }
        return nil
    }
}
