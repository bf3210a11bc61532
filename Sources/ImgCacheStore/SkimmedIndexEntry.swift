import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An entry record of the index read only as far as the index and `stats` need it: its local
/// name, size, fetch time, last use and image file fingerprint. The rest of the metadata (URL,
/// digest, headers) is read from the file (``metadata()``) when the entry is looked up.
///
/// Reading every record whole made a warm run with a big cache spend most of its time on entries
/// it never looked at (a page looks only at its own images); skimming a line costs a fraction of
/// reading it.
struct SkimmedIndexEntry {
    let localName: String
    let byteCount: Int
    let fetchedAt: Date
    /// The last use: the record's own, or a later `used` record's.
    var lastUsedAt: Date
    let imageFile: ImageFileFingerprint
    /// Whether a later `used` record changed ``lastUsedAt``, so that the line no longer says all.
    var usedSince = false
    /// Where the line is: the very file it was read from, open, since the path may name a new
    /// file by the time the metadata is needed.
    let file: CacheIndexFileHandle
    let offset: Int
    let length: Int

    /// The line's whole metadata, or nil when it does not read after all (a damaged line that
    /// looked whole): the entry then reads as missing, and is fetched again.
    func metadata() -> CacheEntryMetadata? {
        guard let bytes = file.read(offset: offset, length: length) else { return nil }
        return metadata(inLine: bytes[...])
    }

    /// ``metadata()`` from the line's bytes, already read.
    func metadata(inLine line: ArraySlice<UInt8>) -> CacheEntryMetadata? {
        guard case .entry(var metadata)? = CacheIndexRecord.decode(line), metadata.localName == localName,
              metadata.byteCount == byteCount, metadata.fetchedAt == fetchedAt, metadata.imageFile == imageFile
        else { return nil }
        metadata.lastUsedAt = lastUsedAt
        return metadata
    }

    // MARK: Skimming

    private static let byteCountKey = Array(#"{"byteCount":"#.utf8)
    private static let formatVersionKey = Array(#","formatVersion":1,"imageFile":"#.utf8)
    private static let lastUsedAtKey = Array(#""lastUsedAt":"#.utf8)
    private static let fetchedAtKey = Array(#""fetchedAt":"#.utf8)
    private static let inodeKey = Array(#"{"inode":"#.utf8)
    private static let modifiedKey = Array(#","modifiedAtNanoseconds":"#.utf8)
    private static let sizeKey = Array(#","size":"#.utf8)
    private static let localNameKey = Array(#","localName":""#.utf8)
    private static let urlKey = Array(#","url":""#.utf8)

    /// Skims `line` (without its newline), which starts at `offset` in `file`: nil unless it is
    /// an entry record of this format version exactly as ``CacheIndexRecord/encoded()`` writes it
    /// (keys in order, no spaces), with a local name this cache could have written. Other lines
    /// are read whole.
    ///
    /// The key patterns cannot occur inside a string value: a JSON string escapes its quotes.
    static func skim(_ line: UnsafeBufferPointer<UInt8>, file: CacheIndexFileHandle, offset: Int) -> SkimmedIndexEntry? {
        guard let base = line.baseAddress, line.count > 200,
              line[line.count - 2] == UInt8(ascii: "\""), line[line.count - 1] == UInt8(ascii: "}"),
              memcmp(base, byteCountKey, byteCountKey.count) == 0 else { return nil }
        // {"byteCount":1234,
        var position = byteCountKey.count
        var byteCount = 0
        while position < line.count, let digit = digitValue(line[position]), byteCount < Int.max / 100 {
            byteCount = byteCount * 10 + digit
            position += 1
        }
        guard position > byteCountKey.count, position < line.count, line[position] == UInt8(ascii: ",") else { return nil }
        // "fetchedAt":<number> just before the format version, the image file just after it
        guard let versionKey = find(formatVersionKey, in: line, from: position),
              let fetched = number(before: versionKey, key: fetchedAtKey, in: line) else { return nil }
        position = versionKey + formatVersionKey.count
        guard let inode = integer(after: inodeKey, at: &position, in: line),
              let modified = integer(after: modifiedKey, at: &position, in: line),
              let size = integer(after: sizeKey, at: &position, in: line).flatMap({ Int(exactly: $0) }),
              let modifiedAt = Int64(exactly: modified),
              position < line.count, line[position] == UInt8(ascii: "}") else { return nil }
        // "lastUsedAt":<number> just before the local name
        guard let nameKey = find(localNameKey, in: line, from: position),
              let lastUsed = number(before: nameKey, key: lastUsedAtKey, in: line) else { return nil }
        // "localName":"<name>", then the url (and an XXH64 after it)
        let nameStart = nameKey + localNameKey.count
        var nameEnd = nameStart
        while nameEnd < line.count, line[nameEnd] != UInt8(ascii: "\"") { nameEnd += 1 }
        let name = UnsafeBufferPointer(rebasing: line[nameStart..<nameEnd])
        guard nameEnd < line.count, CacheFileLayout.isValidLocalName(utf8: name),
              find(urlKey, in: line, from: nameEnd) != nil else { return nil }
        return SkimmedIndexEntry(
            localName: String(decoding: name, as: UTF8.self), byteCount: byteCount,
            fetchedAt: Date(timeIntervalSince1970: fetched), lastUsedAt: Date(timeIntervalSince1970: lastUsed),
            imageFile: ImageFileFingerprint(size: size, modifiedAtNanoseconds: modifiedAt, inode: inode),
            usedSince: false, file: file, offset: offset, length: line.count)
    }

    /// The number that ends at `end`, right after `key`.
    private static func number(before end: Int, key: [UInt8], in line: UnsafeBufferPointer<UInt8>) -> Double? {
        var start = end
        while start > 0, isNumberByte(line[start - 1]) { start -= 1 }
        guard start > end - 40, start >= key.count,
              memcmp(line.baseAddress! + start - key.count, key, key.count) == 0 else { return nil }
        return Double(String(decoding: UnsafeBufferPointer(rebasing: line[start..<end]), as: UTF8.self))
    }

    /// `key` and the unsigned whole number after it, at `position`, which moves past them.
    private static func integer(after key: [UInt8], at position: inout Int, in line: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard position + key.count < line.count, memcmp(line.baseAddress! + position, key, key.count) == 0 else { return nil }
        position += key.count
        let start = position
        var value: UInt64 = 0
        while position < line.count, let digit = digitValue(line[position]) {
            let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times10.addingReportingOverflow(UInt64(digit))
            guard !overflow, !carry else { return nil }
            value = sum
            position += 1
        }
        return position > start ? value : nil
    }

    /// Where `pattern` first occurs in `line` at or after `start` (memmem is not in every C library's headers).
    private static func find(_ pattern: [UInt8], in line: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = line.baseAddress else { return nil }
        var position = start
        while position + pattern.count <= line.count {
            guard let found = memchr(base + position, Int32(pattern[0]), line.count - pattern.count + 1 - position) else { return nil }
            position = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base
            if memcmp(base + position, pattern, pattern.count) == 0 { return position }
            position += 1
        }
        return nil
    }

    private static func digitValue(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        digitValue(byte) != nil || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
            || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
    }
}

/// An open index file, shared by the entries skimmed from it and closed when the last of them
/// goes: a snapshot renamed over the path leaves the file they point into intact, and its lines
/// are only ever appended to, never changed.
final class CacheIndexFileHandle {
    let descriptor: Int32

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Opens the file at `path` for reading (not through a symbolic link); nil when it cannot be.
    convenience init?(openingForReading path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return nil }
        self.init(descriptor: descriptor)
    }

    deinit {
        close(descriptor)
    }

    /// `length` bytes at `offset`, or nil when the file is shorter (someone truncated it).
    func read(offset: Int, length: Int) -> [UInt8]? {
        let bytes = read(offset: offset, upTo: length)
        return bytes.count == length ? bytes : nil
    }

    /// Up to `length` bytes at `offset`: fewer where the file ends.
    func read(offset: Int, upTo length: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: length)
        var count = 0
        while count < length {
            let read = bytes.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress! + count, length - count, off_t(offset + count))
            }
            if read < 0, errno == EINTR { continue }
            guard read > 0 else { break }
            count += read
        }
        bytes.removeLast(length - count)
        return bytes
    }
}
