import Foundation

/// How ``CacheEntryMetadata`` is written to and read from its JSON sidecar.
///
/// Dates are seconds since 1970 as a JSON number with its fractional part (sub-microsecond
/// precision), everywhere. Keys are sorted and the JSON indented so that two writes of the same
/// record are byte-identical and a person can read a sidecar.
enum CacheMetadataCoding {
    static func encode(_ metadata: CacheEntryMetadata) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .secondsSince1970
        return Array(try encoder.encode(metadata))
    }

    /// The record, or nil when the bytes are not a metadata record of the version this code
    /// writes (damaged, half-written by something other than this store, or from a future layout).
    static func decode(_ bytes: [UInt8]) -> CacheEntryMetadata? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let metadata = try? decoder.decode(CacheEntryMetadata.self, from: Data(bytes)),
              metadata.formatVersion == CacheEntryMetadata.currentFormatVersion else { return nil }
        return metadata
    }

    /// `date` as it will read back from JSON. A `Date` counts from 2001, JSON from 1970, and
    /// converting between the two can move the last bit; storing the converted value makes the
    /// metadata a store call returns equal to what a later lookup reads.
    static func storable(_ date: Date) -> Date {
        var value = date
        // Converting is idempotent after the first step; the second guards against the odd case.
        for _ in 0..<2 { value = Date(timeIntervalSince1970: value.timeIntervalSince1970) }
        return value
    }
}
