import Foundation

/// How ``CacheEntryMetadata`` is written to and read from its JSON sidecar.
///
/// Dates are seconds since 1970 as a JSON number with its fractional part (sub-microsecond
/// precision), everywhere. Keys are sorted and the JSON indented so that two writes of the same
/// record are byte-identical and a person can read a sidecar.
///
/// Written and read by hand rather than with `JSONEncoder`/`JSONDecoder`: a warm run reads one
/// sidecar per image, and Foundation's generic coders spent most of that run's time on 2,000 of
/// them. The output is what `JSONEncoder` writes with `.prettyPrinted, .sortedKeys,
/// .withoutEscapingSlashes`, and the reader accepts any JSON object with these fields.
enum CacheMetadataCoding {
    static func encode(_ metadata: CacheEntryMetadata) throws -> [UInt8] {
        var out = JSONText()
        out.open()
        out.field("byteCount", number: String(metadata.byteCount))
        if let contentType = metadata.contentType { out.field("contentType", string: contentType) }
        if let etag = metadata.etag { out.field("etag", string: etag) }
        out.field("fetchedAt", number: seconds(metadata.fetchedAt))
        out.field("formatVersion", number: String(metadata.formatVersion))
        out.key("imageFile")
        out.open()
        out.field("inode", number: String(metadata.imageFile.inode))
        out.field("modifiedAtNanoseconds", number: String(metadata.imageFile.modifiedAtNanoseconds))
        out.field("size", number: String(metadata.imageFile.size))
        out.close()
        if let lastModified = metadata.lastModified { out.field("lastModified", string: lastModified) }
        out.field("lastUsedAt", number: seconds(metadata.lastUsedAt))
        out.field("localName", string: metadata.localName)
        out.field("sha256", string: metadata.sha256)
        out.field("url", string: metadata.url)
        out.close()
        return out.bytes
    }

    /// The record, or nil when the bytes are not a metadata record of the version this code
    /// writes (damaged, half-written by something other than this store, or from a future layout).
    static func decode(_ bytes: [UInt8]) -> CacheEntryMetadata? {
        var reader = JSONReader(bytes)
        guard case .object(let fields)? = reader.document(),
              let version = fields["formatVersion"]?.int, version == CacheEntryMetadata.currentFormatVersion,
              case .object(let file)? = fields["imageFile"],
              let size = file["size"]?.int, let modified = file["modifiedAtNanoseconds"]?.int64,
              let inode = file["inode"]?.uint64,
              let url = fields["url"]?.string, let localName = fields["localName"]?.string,
              let byteCount = fields["byteCount"]?.int, let sha256 = fields["sha256"]?.string,
              let fetchedAt = fields["fetchedAt"]?.double, let lastUsedAt = fields["lastUsedAt"]?.double,
              let contentType = fields["contentType"].optionalString,
              let etag = fields["etag"].optionalString,
              let lastModified = fields["lastModified"].optionalString
        else { return nil }
        return CacheEntryMetadata(
            formatVersion: version, url: url, localName: localName, contentType: contentType, byteCount: byteCount,
            sha256: sha256, etag: etag, lastModified: lastModified,
            fetchedAt: Date(timeIntervalSince1970: fetchedAt), lastUsedAt: Date(timeIntervalSince1970: lastUsedAt),
            imageFile: ImageFileFingerprint(size: size, modifiedAtNanoseconds: modified, inode: inode))
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

    /// Seconds since 1970, shortest text that reads back as the same `Double`.
    private static func seconds(_ date: Date) -> String {
        let value = date.timeIntervalSince1970
        return value.isFinite ? "\(value)" : "0"
    }
}
