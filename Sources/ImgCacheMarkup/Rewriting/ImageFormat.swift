import Foundation

/// Image formats recognised by their first bytes, so that an HTML error page served with
/// `200 OK` for `logo.png` is never cached as an image.
public enum ImageFormat: String, Sendable, CaseIterable, Codable {
    /// JPEG (`FF D8 FF`).
    case jpeg
    /// PNG (its 8-byte signature).
    case png
    /// GIF (`GIF87a` or `GIF89a`).
    case gif
    /// WebP (a RIFF container of type `WEBP`).
    case webp
    /// AVIF (an ISO media file whose brand is `avif` or `avis`).
    case avif
    /// SVG (XML text whose root element is `svg`).
    case svg

    /// The formats accepted when images have these extensions: JPEG, PNG and GIF always,
    /// WebP, AVIF and SVG only when their extension is enabled.
    package static func accepted(forExtensions extensions: Set<String>) -> Set<ImageFormat> {
        var formats: Set<ImageFormat> = [.jpeg, .png, .gif]
        if extensions.contains("webp") { formats.insert(.webp) }
        if extensions.contains("avif") { formats.insert(.avif) }
        if extensions.contains("svg") { formats.insert(.svg) }
        return formats
    }

    /// The file extension an image of this format is stored under when its URL names none.
    package var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .gif: "gif"
        case .webp: "webp"
        case .avif: "avif"
        case .svg: "svg"
        }
    }

    /// The format's media type, as an `Accept` header names it.
    package var mediaType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .avif: "image/avif"
        case .svg: "image/svg+xml"
        }
    }

    /// An `Accept` header value naming exactly `formats` (in a fixed order), so that an image CDN
    /// that negotiates the format (`f_auto`, `auto=format`) answers with one that is kept.
    package static func acceptHeader(for formats: Set<ImageFormat>) -> String {
        allCases.filter(formats.contains).map(\.mediaType).joined(separator: ", ")
    }

    /// The format `bytes` start like, if any.
    package static func detect(_ bytes: [UInt8]) -> ImageFormat? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && bytes[offset..<(offset + prefix.count)].elementsEqual(prefix)
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return .webp }
        if starts(Array("ftyp".utf8), at: 4), starts(Array("avif".utf8), at: 8) || starts(Array("avis".utf8), at: 8) { return .avif }
        if looksLikeSVG(bytes) { return .svg }
        return nil
    }

    /// An SVG document: after an optional BOM, whitespace, XML declaration, comments and doctype,
    /// the first element is `<svg`.
    private static func looksLikeSVG(_ bytes: [UInt8]) -> Bool {
        let head = String(decoding: bytes.prefix(4096), as: UTF8.self)
        var rest = Substring(head)
        if rest.hasPrefix("\u{FEFF}") { rest = rest.dropFirst() }
        while true {
            rest = rest.drop { $0.isWhitespace }
            if rest.hasPrefix("<?") || rest.hasPrefix("<!--") || rest.hasPrefix("<!") {
                let terminator = rest.hasPrefix("<?") ? "?>" : (rest.hasPrefix("<!--") ? "-->" : ">")
                guard let end = rest.range(of: terminator) else { return false }
                rest = rest[end.upperBound...]
                continue
            }
            return rest.hasPrefix("<svg")
        }
    }
}
