/// Decides whether an image file still is the one its metadata describes.
///
/// Two levels of checking: ``inspect(_:expectedURL:)`` compares the image file's size, inode and
/// modification time with the fingerprint recorded at write time (one `stat`, no reading), and
/// ``verifiedBytes(of:)`` reads the bytes and compares their checksum. Nothing is ever served on
/// the strength of the first alone.
struct CacheEntryReader: Sendable {
    let layout: CacheFileLayout

    /// What one look at an entry found.
    enum Inspection {
        /// Image present, fingerprint unchanged since the write.
        case intact(CacheEntryMetadata)
        /// The image has the recorded size, but its inode or modification time changed (the
        /// folder was copied or restored, or the file replaced by something else). Only hashing
        /// can tell whether the bytes are still right.
        case fingerprintChanged(CacheEntryMetadata)
        /// No entry, or one that can never be served: no image, metadata for another URL, or an
        /// image of the wrong size.
        case unusable
    }

    /// Compares an entry's metadata (nil: no entry) with its image file.
    /// - Parameter expectedURL: the URL (without fragment) the entry must be for, or nil to accept any.
    func inspect(_ metadata: CacheEntryMetadata?, expectedURL: String?) -> Inspection {
        guard let metadata, expectedURL == nil || metadata.url == expectedURL,
              metadata.imageFile.size == metadata.byteCount,
              let status = CacheFileSystem.status(ofPath: layout.imagePath(metadata.localName)),
              status.isRegularFile, status.size == metadata.byteCount else { return .unusable }
        return status.fingerprint == metadata.imageFile ? .intact(metadata) : .fingerprintChanged(metadata)
    }

    /// Whether the image file is there with the recorded size and fingerprint: what
    /// ``inspect(_:expectedURL:)`` calls intact, from a record's summary.
    func isIntact(localName: String, byteCount: Int, imageFile: ImageFileFingerprint) -> Bool {
        guard imageFile.size == byteCount, let status = CacheFileSystem.status(ofPath: layout.imagePath(localName)),
              status.isRegularFile, status.size == byteCount else { return false }
        return status.fingerprint == imageFile
    }

    /// The image's bytes and the status of the file they were read from, when their length and
    /// checksum match the metadata; nil otherwise.
    func verifiedBytes(of metadata: CacheEntryMetadata) -> (bytes: [UInt8], status: FileStatus)? {
        guard let file = CacheFileSystem.readFile(at: layout.imagePath(metadata.localName)),
              file.bytes.count == metadata.byteCount,
              metadata.checksum.matches(file.bytes) else { return nil }
        return file
    }
}
