@_spi(Fuzzing) @testable import ImgCache
@testable import ImgCacheMarkup

/// Byte-buffer conveniences shared by the Encoding tests.
enum EncodingTestSupport {
    static func sniff(_ bytes: [UInt8], transport: String? = nil) -> SniffedEncoding {
        bytes.withUnsafeBufferPointer { EncodingSniffer.sniff($0, transportLabel: transport) }
    }

    static func sniff(_ text: String, transport: String? = nil) -> SniffedEncoding {
        sniff(Array(text.utf8), transport: transport)
    }

    static func prescan(_ text: String) -> HTMLEncoding? {
        Array(text.utf8).withUnsafeBufferPointer { MetaCharsetPrescan.prescan($0) }
    }

    static func decodedText(_ bytes: [UInt8], _ encoding: HTMLEncoding, references: Bool = true) -> DecodedText {
        bytes.withUnsafeBufferPointer { DecodedText.decode($0, encoding: encoding, characterReferences: references) }
    }

    static func decodedText(_ text: String, references: Bool = true) -> DecodedText {
        decodedText(Array(text.utf8), .utf8, references: references)
    }

    static func decode(_ bytes: [UInt8], _ encoding: HTMLEncoding) -> String {
        bytes.withUnsafeBufferPointer { TextCodec.decode($0, from: encoding) }
    }

    static func characterLength(_ bytes: [UInt8], at i: Int = 0, _ encoding: HTMLEncoding) -> Int {
        bytes.withUnsafeBufferPointer { encoding.characterLength(at: i, in: $0) }
    }

    static func encoding(_ label: String) -> HTMLEncoding {
        guard let encoding = HTMLEncoding(label: label) else { fatalError("unknown test label \(label)") }
        return encoding
    }

    /// The UTF-16 code units of `text` as bytes.
    static func utf16(_ text: String, bigEndian: Bool = false) -> [UInt8] {
        text.utf16.flatMap { unit -> [UInt8] in
            let high = UInt8(unit >> 8), low = UInt8(unit & 0xFF)
            return bigEndian ? [high, low] : [low, high]
        }
    }
}

/// A small deterministic generator (SplitMix64), so fuzz failures reproduce.
struct EncodingFuzzGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension SniffedEncoding {
    /// The notices as the warning line they make, or nil without any.
    var noticeText: String? { notices.isEmpty ? nil : RewriteWarning.encoding(notices).description }
}
