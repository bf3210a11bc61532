#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A look at a few entries of the index through its lookup table (``CacheLookupTable``): the
/// records the table points at for their names, then the lines appended after what it covers,
/// applied in order as any reader applies them. What a warm run of a page needs from a big cache,
/// without reading the whole index.
struct CacheIndexProbe {
    /// Each name's current metadata (nil for a nil name or no entry), in order.
    let metadata: [CacheEntryMetadata?]
    /// The index file looked at: appends made under the same hold of the folder lock go to it.
    let indexFile: FileStatus

    /// Looks `localNames` up; nil when the table cannot be used (none, made from another index
    /// file or another state of it, or pointing at lines that are not entry records), and the
    /// whole index has to be read instead.
    init?(localNames: [String?], layout: CacheFileLayout) {
        guard let table = CacheLookupTable.read(at: layout.lookupTablePath) else { return nil }
        guard let file = CacheIndexFileHandle(openingForReading: layout.indexPath),
              let status = CacheFileSystem.status(ofDescriptor: file.descriptor), status.isRegularFile,
              status.device == table.source.device, status.inode == table.source.inode,
              CacheLookupTable.source(of: file, status: status, coveredLength: table.source.coveredLength) == table.source
        else { return nil }

        var found: [CacheIndexLine] = []
        for name in Set(localNames.compactMap { $0 }) {
            for row in table.rows(forHash: CacheLookupTable.nameHash(name)) {
                guard let line = file.read(offset: row.offset, length: row.length) else { return nil }
                let skimmed = line.withUnsafeBufferPointer { SkimmedIndexEntry.skim($0, file: file, offset: row.offset) }
                // A row must point at an entry record; another name's is a hash collision.
                guard var entry = skimmed else { return nil }
                guard entry.localName == name else { continue }
                entry.lastUsedAt = Date(timeIntervalSince1970: row.lastUsedAt)
                guard let metadata = entry.metadata(inLine: line[...]) else { return nil }
                found.append(.record(.entry(metadata)))
            }
        }
        var index = CacheIndex()
        index.apply(found)
        var readLength = table.source.coveredLength
        index.apply(CacheIndexFile.readLines(of: file, from: readLength, to: status.size, readLength: &readLength))
        metadata = localNames.map { $0.flatMap { index[$0] } }
        indexFile = status
    }
}
