package import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
package import ImgCacheURLs
package import ImgCacheMarkup

/// One downloaded image to store, as ``ImageCacheStore/store(_:for:contentType:etag:lastModified:now:)``
/// takes it.
package struct ImageToStore: Sendable {
    package var bytes: [UInt8]
    package var url: BrowserURL
    package var contentType: String?
    package var etag: String?
    package var lastModified: String?
    /// The format the downloader read off the bytes, so that the store need not read it again.
    package var format: ImageFormat? = nil
    /// The name the URL gives the image (`LocalImageNaming.localName(for:)`), when the downloader
    /// already has it, so that the store need not make it again.
    package var urlName: String? = nil

    package init(bytes: [UInt8], url: BrowserURL, contentType: String? = nil, etag: String? = nil, lastModified: String? = nil,
                 format: ImageFormat? = nil, urlName: String? = nil) {
        self.bytes = bytes
        self.url = url
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
        self.format = format
        self.urlName = urlName
    }
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
    /// The images stored are kept for ``recentAnswers(for:now:)``.
    package func store(_ images: [ImageToStore], now: Date = Date()) -> [Result<CacheEntryMetadata, any Error>] {
        let results = storeEach(images, now: now)
        rememberAnswers(results.lazy.compactMap { try? $0.get() }, at: now)
        return results
    }

    private func storeEach(_ images: [ImageToStore], now: Date) -> [Result<CacheEntryMetadata, any Error>] {
        if policy.maxTotalBytes != nil || images.count == 1 {
            return images.map { image in
                Result {
                    try storeEntry(image.bytes, for: image.url, contentType: image.contentType, etag: image.etag,
                                   lastModified: image.lastModified, format: image.format, urlName: image.urlName, now: now)
                }
            }
        }
        struct Staged {
            let localName: String
            let checksum: ContentChecksum
            let file: StagedImageFile?
        }
        var results = [Result<CacheEntryMetadata, any Error>?](repeating: nil, count: images.count)
        var staged: [(position: Int, item: Staged)] = []
        for (position, image) in images.enumerated() {
            guard let localName = storageName(for: image.url, bytes: image.bytes, format: image.format, urlName: image.urlName) else {
                results[position] = .failure(ImageCacheError.noLocalName(url: image.url.serializedWithoutFragment))
                continue
            }
            // A failure here (a folder that cannot be made) is met again, as this image's own, by
            // `place` under the lock.
            let file = (try? stage(image.bytes, localName: localName)) ?? nil
            staged.append((position, Staged(localName: localName, checksum: ContentChecksum(of: image.bytes), file: file)))
        }

        do {
            try withExclusiveAccess { session in
                var records: [CacheIndexRecord] = []
                var placed: [(position: Int, metadata: CacheEntryMetadata)] = []
                var superseded: [String] = []
                let time = CacheIndexRecord.storable(now)
                for (position, item) in staged {
                    let image = images[position]
                    do {
                        let status = try place(item.file, bytes: image.bytes, localName: item.localName)
                        let metadata = CacheEntryMetadata(
                            url: image.url.serializedWithoutFragment, localName: item.localName,
                            contentType: image.contentType, byteCount: image.bytes.count, checksum: item.checksum,
                            etag: image.etag, lastModified: image.lastModified,
                            fetchedAt: time, lastUsedAt: time, imageFile: status.fingerprint)
                        // Named by its bytes (the URL gives no name): a name the URL had before goes.
                        if (image.urlName ?? naming.localName(for: image.url)) == nil,
                           let old = session.superseded(url: metadata.url, by: item.localName) {
                            superseded.append(old)
                        }
                        records.append(.entry(metadata))
                        placed.append((position, metadata))
                    } catch {
                        results[position] = .failure(error)
                    }
                }
                do {
                    try session.record(records)
                } catch {
                    // As in the single store: the images are in place but their records are not,
                    // so give the space back now.
                    for (position, metadata) in placed {
                        unlink(layout.imagePath(metadata.localName))
                        results[position] = .failure(error)
                    }
                    return
                }
                for old in superseded { _ = try? session.removeEntry(old) }
                for (position, metadata) in placed { results[position] = .success(metadata) }
            }
        } catch {
            // The lock could not be taken: nothing was placed or recorded.
            for (position, _) in staged where results[position] == nil { results[position] = .failure(error) }
        }
        // Every position was given its result above: a missing name, a failed placing, the
        // record, or the lock.
        return results.map { $0! }
    }
}
