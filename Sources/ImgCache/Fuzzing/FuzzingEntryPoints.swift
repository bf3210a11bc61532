import ImgCacheMarkup
import ImgCacheStore
import ImgCacheURLs
/// The internal parsers the fuzz targets (`Fuzz/`) and their regression tests drive directly,
/// reached through `@_spi(Fuzzing) import ImgCache`. Not API: it may change with any release.
///
/// Each entry point hands back plain values, so that the parsers' own types stay internal.
@_spi(Fuzzing) public enum FuzzingEntryPoints {
    /// One `srcset` candidate: the scalar range of its URL in the parsed text, and whether browsers keep it.
    public struct SrcsetCandidate: Equatable, Sendable {
        /// Scalar range of the URL token.
        public let urlRange: Range<Int>
        /// False when its descriptors make browsers drop it.
        public let isValid: Bool
    }

    /// The candidates of a `srcset` attribute value (already entity-decoded), as the rewriter sees them.
    public static func srcsetCandidates(_ text: [Unicode.Scalar]) -> [SrcsetCandidate] {
        SrcsetParser.parse(text).map { SrcsetCandidate(urlRange: $0.urlRange, isValid: $0.isValid) }
    }

    /// One URL found in CSS.
    public struct CSSURL: Equatable, Sendable {
        /// Scalar range of the URL's characters (inside the quotes, or the unquoted run).
        public let range: Range<Int>
        /// The URL with CSS escapes decoded.
        public let value: String
        /// True for an `@import` or `@font-face` URL: never an image.
        public let isNeverImage: Bool
        /// The property the URL is a value of, if any.
        public let property: String?
    }

    /// The URLs the CSS scanner finds in `text`.
    public static func cssURLs(_ text: [Unicode.Scalar]) -> [CSSURL] {
        CSSURLScanner.scan(text).map {
            CSSURL(range: $0.range, value: $0.value, isNeverImage: $0.isNeverImage, property: $0.property)
        }
    }

    /// What the cache's index reader makes of one line (without its newline).
    public struct IndexLine: Sendable {
        /// The local name of the record the reader accepted, or nil when it skipped the line.
        public let acceptedLocalName: String?
        /// The accepted record written out again as the cache writes it (newline included).
        public let reencoded: [UInt8]?
        /// Whether ``reencoded`` reads back as the same record.
        public let roundTrips: Bool
        /// Whether the fast line parser and the general JSON reader disagree about a line the fast
        /// parser accepts (they must give the same record).
        public let readersDisagree: Bool
    }

    /// Reads one index line the way the cache does when it opens its folder.
    public static func readIndexLine(_ line: [UInt8]) -> IndexLine {
        let slice = line[...]
        var disagree = false
        if let fast = CacheIndexLineParser.parse(slice) {
            disagree = CacheIndexRecord.decodeAnyJSON(slice) != fast
        }
        guard let record = CacheIndexRecord.decode(slice) else {
            return IndexLine(acceptedLocalName: nil, reencoded: nil, roundTrips: true, readersDisagree: disagree)
        }
        let encoded = record.encoded()
        let again = CacheIndexRecord.decode(encoded.dropLast())
        return IndexLine(acceptedLocalName: record.localName, reencoded: encoded, roundTrips: again == record,
                         readersDisagree: disagree)
    }
}
