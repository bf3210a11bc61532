/// What the file system says about an image file at the moment it was written: enough to tell,
/// without reading the bytes, whether the file is still the one the metadata describes.
///
/// Images are only ever replaced by renaming a new file over the old one, never edited in place,
/// so a replaced image has a new inode and (almost always) a new modification time, and a
/// truncated one has a new size. Comparing these three costs one `stat`, which is what lets a warm
/// lookup skip hashing the bytes. The checksum in ``CacheEntryMetadata/checksum`` stays the authority:
/// a fingerprint that no longer matches is re-checked against it (see
/// ``ImageCacheStore/lookup(_:now:)``), and bytes are hashed before they are served.
struct ImageFileFingerprint: Codable, Sendable, Hashable {
    /// The file's size in bytes.
    var size: Int
    /// The file's modification time in whole nanoseconds since 1970, exactly as `stat` reports it.
    /// An integer rather than a date because it is compared for equality, and a floating-point
    /// number of seconds cannot hold a nanosecond timestamp exactly.
    var modifiedAtNanoseconds: Int64
    /// The file's inode number. A file renamed into place gets a new one even when its size and
    /// modification time happen to equal the old file's (timestamps are coarser than they look).
    var inode: UInt64

    /// Creates a fingerprint from `stat` values.
    init(size: Int, modifiedAtNanoseconds: Int64, inode: UInt64) {
        self.size = size
        self.modifiedAtNanoseconds = modifiedAtNanoseconds
        self.inode = inode
    }
}
