package import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ImgCacheSupport
import ImgCacheMarkup

/// One line of the cache folder's index (`.imgcache.index`): a change to one entry.
///
/// The index is an append-only log, one compact JSON object per line; the last record about a
/// local name wins:
///
/// ```
/// {"byteCount":1234,"contentType":"image/png",…,"url":"https://…/cat.png"}   an entry stored or updated
/// {"lastUsedAt":1795366900.125,"used":"3f2a…c1.png"}                         a use (for LRU eviction)
/// {"removed":"3f2a…c1.png"}                                                  an entry deleted
/// ```
///
/// Dates are seconds since 1970 as a JSON number with its fractional part. Keys are sorted, so
/// that two writes of the same record are byte-identical.
///
/// Written and read by hand rather than with `JSONEncoder`/`JSONDecoder`: a warm run reads one
/// record per image, and Foundation's generic coders spent most of such a run's time on them.
package enum CacheIndexRecord: Equatable {
    /// An entry was stored, revalidated, or its fingerprint refreshed: the whole metadata.
    case entry(CacheEntryMetadata)
    /// An entry was used at this time (only its ``CacheEntryMetadata/lastUsedAt`` changes).
    case used(localName: String, at: Date)
    /// An entry was deleted.
    case removed(localName: String)

    /// The entry the record is about.
    package var localName: String {
        switch self {
        case .entry(let metadata): metadata.localName
        case .used(let localName, _), .removed(let localName): localName
        }
    }

    /// The record as one line, newline included.
    package func encoded() -> [UInt8] {
        var out = JSONText(indented: false)
        out.open()
        switch self {
        case .entry(let metadata):
            Self.writeFields(of: metadata, to: &out)
        case .used(let localName, let at):
            out.field("lastUsedAt", number: Self.seconds(at))
            out.field("used", string: localName)
        case .removed(let localName):
            out.field("removed", string: localName)
        }
        out.close()
        out.append(UInt8(ascii: "\n"))
        return out.bytes
    }

    /// The record a line holds (without its newline), or nil when it is not one this code
    /// writes: damaged, cut short by a killed process, or from a future layout.
    ///
    /// A record must name an entry this cache could have written and have a size that can be
    /// one: the index decides which files eviction and `prune` delete, so a record for
    /// `../elsewhere` from a tampered file must never be taken. Its dates must be finite: `1e400`
    /// reads as infinity, which would keep an entry from ever being evicted and which the writer
    /// cannot write back.
    package static func decode(_ line: ArraySlice<UInt8>) -> CacheIndexRecord? {
        guard let record = CacheIndexLineParser.parse(line) ?? decodeAnyJSON(line),
              CacheFileLayout.isValidLocalName(record.localName) else { return nil }
        switch record {
        case .entry(let metadata):
            guard metadata.byteCount >= 0, metadata.fetchedAt.timeIntervalSince1970.isFinite,
                  metadata.lastUsedAt.timeIntervalSince1970.isFinite else { return nil }
        case .used(_, let at):
            guard at.timeIntervalSince1970.isFinite else { return nil }
        case .removed:
            break
        }
        return record
    }

    /// ``decode(_:)`` with the general JSON reader: any spacing, key order, escapes and extra keys.
    package static func decodeAnyJSON(_ line: ArraySlice<UInt8>) -> CacheIndexRecord? {
        var reader = JSONReader(Array(line))
        guard case .object(let fields)? = reader.document() else { return nil }
        if let removed = fields["removed"] {
            guard fields.count == 1, let localName = removed.string else { return nil }
            return .removed(localName: localName)
        }
        if let used = fields["used"] {
            guard fields.count == 2, let localName = used.string, let at = fields["lastUsedAt"]?.double else { return nil }
            return .used(localName: localName, at: Date(timeIntervalSince1970: at))
        }
        return metadata(from: fields).map(CacheIndexRecord.entry)
    }

    /// The records in `bytes`, which must end at a line end; lines that are not records are
    /// skipped (the entry they were about then reads as it was before, or as missing).
    static func decodeLines(_ bytes: ArraySlice<UInt8>) -> [CacheIndexRecord] {
        // Lines found with memchr rather than `split`: a big index runs to tens of megabytes, and
        // the generic split spent much of a warm run's time finding its newlines.
        var records: [CacheIndexRecord] = []
        records.reserveCapacity(bytes.count / 400)
        let newline = Int32(UInt8(ascii: "\n"))
        bytes.withUnsafeBufferPointer { (buffer: UnsafeBufferPointer<UInt8>) -> Void in
            guard let base = buffer.baseAddress else { return }
            var start = 0
            while start < buffer.count {
                var end = buffer.count
                if let found = memchr(base + start, newline, buffer.count - start) {
                    end = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base
                }
                let first = bytes.startIndex + start
                if end > start, let record = decode(bytes[first..<(first + end - start)]) { records.append(record) }
                start = end + 1
            }
        }
        return records
    }

    private static func writeFields(of metadata: CacheEntryMetadata, to out: inout JSONText) {
        out.field("byteCount", integer: metadata.byteCount)
        if let contentType = metadata.contentType { out.field("contentType", string: contentType) }
        if let etag = metadata.etag { out.field("etag", string: etag) }
        out.field("fetchedAt", number: seconds(metadata.fetchedAt))
        out.field("formatVersion", integer: metadata.formatVersion)
        out.key("imageFile")
        out.open()
        out.field("inode", integer: metadata.imageFile.inode)
        out.field("modifiedAtNanoseconds", integer: metadata.imageFile.modifiedAtNanoseconds)
        out.field("size", integer: metadata.imageFile.size)
        out.close()
        if let lastModified = metadata.lastModified { out.field("lastModified", string: lastModified) }
        out.field("lastUsedAt", number: seconds(metadata.lastUsedAt))
        out.field("localName", string: metadata.localName)
        // In the keys' order: "sha256" sorts before "url", "xxh64" after it.
        if case .sha256(let hex) = metadata.checksum { out.field("sha256", string: hex) }
        out.field("url", string: metadata.url)
        if case .xxh64(let value) = metadata.checksum { out.field("xxh64", string: ContentChecksum.hex(value)) }
    }

    private static func metadata(from fields: [String: JSONValue]) -> CacheEntryMetadata? {
        guard let version = fields["formatVersion"]?.int, version == CacheEntryMetadata.currentFormatVersion,
              case .object(let file)? = fields["imageFile"],
              let size = file["size"]?.int, let modified = file["modifiedAtNanoseconds"]?.int64,
              let inode = file["inode"]?.uint64,
              let url = fields["url"]?.string, let localName = fields["localName"]?.string,
              let byteCount = fields["byteCount"]?.int, let checksum = Self.checksum(in: fields),
              let fetchedAt = fields["fetchedAt"]?.double, let lastUsedAt = fields["lastUsedAt"]?.double,
              let contentType = fields["contentType"].optionalString,
              let etag = fields["etag"].optionalString,
              let lastModified = fields["lastModified"].optionalString
        else { return nil }
        return CacheEntryMetadata(
            formatVersion: version, url: url, localName: localName, contentType: contentType, byteCount: byteCount,
            checksum: checksum, etag: etag, lastModified: lastModified,
            fetchedAt: Date(timeIntervalSince1970: fetchedAt), lastUsedAt: Date(timeIntervalSince1970: lastUsedAt),
            imageFile: ImageFileFingerprint(size: size, modifiedAtNanoseconds: modified, inode: inode))
    }

    /// The record's checksum: exactly one of its `xxh64` and `sha256` fields.
    private static func checksum(in fields: [String: JSONValue]) -> ContentChecksum? {
        switch (fields["xxh64"], fields["sha256"]) {
        case (let field?, nil): field.string.flatMap { ContentChecksum(xxh64Hex: $0.utf8) }
        case (nil, let field?): field.string.map { .sha256($0) }
        default: nil
        }
    }

    /// `date` as it will read back from the index. A `Date` counts from 2001, JSON from 1970,
    /// and converting between the two can move the last bit; storing the converted value makes
    /// the metadata a store call returns equal to what a later lookup reads.
    static func storable(_ date: Date) -> Date {
        var value = date
        // Converting is idempotent after the first step; the second guards against the odd case.
        for _ in 0..<2 { value = Date(timeIntervalSince1970: value.timeIntervalSince1970) }
        return value
    }

    /// Seconds since 1970, shortest text that reads back as the same `Double`.
    private static func seconds(_ date: Date) -> String {
        let value = date.timeIntervalSince1970
        return value.isFinite ? value.description : "0"
    }
}
