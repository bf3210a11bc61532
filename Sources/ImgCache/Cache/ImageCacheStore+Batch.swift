import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One downloaded image to store, as ``ImageCacheStore/store(_:for:contentType:etag:lastModified:now:)``
/// takes it.
struct ImageToStore: Sendable {
    var bytes: [UInt8]
    var url: WebURL
    var contentType: String?
    var etag: String?
    var lastModified: String?
}

extension ImageCacheStore {
    /// Stores several images as ``store(_:for:contentType:etag:lastModified:now:)`` stores one
    /// each, with one turn of the folder lock and one index append for all of them: what the
    /// downloader does when images arrive faster than they are written.
    ///
    /// Each image is staged outside the lock and linked into place under it, as alone; one image's
    /// failure is its own. A failed index append fails the whole batch, and the images it placed
    /// are removed, as the single store does. With a size cap, each image is stored alone, so that
    /// eviction keeps its one-at-a-time order.
    func store(_ images: [ImageToStore], now: Date = Date()) -> [Result<CacheEntryMetadata, any Error>] {
        if policy.maxTotalBytes != nil || images.count == 1 {
            return images.map { image in
                Result {
                    try store(image.bytes, for: image.url, contentType: image.contentType, etag: image.etag,
                              lastModified: image.lastModified, now: now)
                }
            }
        }
        struct Staged {
            let localName: String
            let imagePath: String
            let sha256: String
            let file: StagedImageFile?
        }
        var results = [Result<CacheEntryMetadata, any Error>?](repeating: nil, count: images.count)
        var staged: [Int: Staged] = [:]
        for (position, image) in images.enumerated() {
            let urlString = image.url.serializedWithoutFragment
            guard let localName = localName(for: image.url) else {
                results[position] = .failure(ImageCacheError.noLocalName(url: urlString))
                continue
            }
            let imagePath = layout.imagePath(localName)
            // As in the single store: a missing folder shows up as a failed write, mended below.
            let file = try? StagedImageFile.write(image.bytes, for: imagePath, durable: policy.durableWrites)
            staged[position] = Staged(localName: localName, imagePath: imagePath,
                                      sha256: CacheContentDigest.sha256Hex(image.bytes), file: file)
        }
        if staged.values.contains(where: { $0.file == nil }) {
            for item in staged.values where item.file == nil {
                try? CacheFileSystem.createFolder(at: layout.subfolderPath(item.localName) ?? layout.folder)
            }
        }

        do {
            try withExclusiveAccess { session in
                var records: [CacheIndexRecord] = []
                var placed: [(position: Int, metadata: CacheEntryMetadata)] = []
                let time = CacheIndexRecord.storable(now)
                for (position, item) in staged.sorted(by: { $0.key < $1.key }) {
                    let image = images[position]
                    do {
                        let status: FileStatus
                        if let file = item.file, file.place(at: item.imagePath) == 0 {
                            status = file.status
                        } else {
                            // As in the single store: written again under the lock, where neither
                            // a missing folder nor a concurrent `clear` can recur.
                            try CacheFileSystem.createFolder(at: layout.subfolderPath(item.localName) ?? layout.folder)
                            let retry = try StagedImageFile.write(image.bytes, for: item.imagePath, durable: policy.durableWrites)
                            let failure = retry.place(at: item.imagePath)
                            guard failure == 0 else { throw FileError(path: item.imagePath, errno: failure) }
                            status = retry.status
                        }
                        if policy.durableWrites { CacheFileSystem.syncFolder(containing: item.imagePath) }
                        let metadata = CacheEntryMetadata(
                            url: image.url.serializedWithoutFragment, localName: item.localName,
                            contentType: image.contentType, byteCount: image.bytes.count, sha256: item.sha256,
                            etag: image.etag, lastModified: image.lastModified,
                            fetchedAt: time, lastUsedAt: time, imageFile: status.fingerprint)
                        records.append(.entry(metadata))
                        placed.append((position, metadata))
                    } catch {
                        results[position] = .failure(error)
                    }
                }
                do {
                    try session.record(records)
                } catch {
                    for (position, metadata) in placed {
                        unlink(layout.imagePath(metadata.localName))
                        results[position] = .failure(error)
                    }
                    return
                }
                for (position, metadata) in placed { results[position] = .success(metadata) }
            }
        } catch {
            // The lock could not be taken: nothing was placed or recorded.
            for position in results.indices where results[position] == nil { results[position] = .failure(error) }
        }
        return results.map { $0 ?? .failure(ImageCacheError.noLocalName(url: "")) }
    }
}
