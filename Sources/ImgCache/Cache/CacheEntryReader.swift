/// Reads entries and decides whether an image and its metadata still agree.
///
/// Two levels of checking: ``inspect(_:expectedURL:)`` compares the image file's size, inode and
/// modification time with the fingerprint recorded at write time (one `stat`, no reading), and
/// ``verifiedBytes(of:)`` reads the bytes and compares their SHA-256. Nothing is ever served on
/// the strength of the first alone.
struct CacheEntryReader: Sendable {
    let layout: CacheFileLayout

    /// What one look at an entry found.
    enum Inspection {
        /// Metadata readable, image present, fingerprint unchanged since the write.
        case intact(CacheEntryMetadata)
        /// Metadata readable and the image has the recorded size, but its inode or modification
        /// time changed (the folder was copied or restored, or the file replaced by something
        /// else). Only hashing can tell whether the bytes are still right.
        case fingerprintChanged(CacheEntryMetadata)
        /// No entry, or one that can never be served: a half missing, metadata unreadable or for
        /// another URL, or an image of the wrong size.
        case unusable
    }

    /// The metadata sidecar of `localName`, when present, decodable, of the current format and
    /// really about `localName` (a sidecar copied under another name is not trusted).
    func metadata(for localName: String) -> CacheEntryMetadata? {
        guard let file = CacheFileSystem.readFile(at: layout.metadataPath(localName)),
              let metadata = CacheMetadataCoding.decode(file.bytes),
              metadata.localName == localName else { return nil }
        return metadata
    }

    /// Looks at an entry without reading the image's bytes.
    /// - Parameter expectedURL: the URL (without fragment) the entry must be for, or nil to accept any.
    func inspect(_ localName: String, expectedURL: String?) -> Inspection {
        guard let metadata = metadata(for: localName) else { return .unusable }
        return inspect(metadata, expectedURL: expectedURL)
    }

    /// Compares already-read metadata with the image file.
    func inspect(_ metadata: CacheEntryMetadata, expectedURL: String?) -> Inspection {
        guard expectedURL == nil || metadata.url == expectedURL,
              metadata.imageFile.size == metadata.byteCount,
              let status = CacheFileSystem.status(ofPath: layout.imagePath(metadata.localName)),
              status.isRegularFile, status.size == metadata.byteCount else { return .unusable }
        return status.fingerprint == metadata.imageFile ? .intact(metadata) : .fingerprintChanged(metadata)
    }

    /// The image's bytes and the status of the file they were read from, when their length and
    /// SHA-256 match the metadata; nil otherwise.
    func verifiedBytes(of metadata: CacheEntryMetadata) -> (bytes: [UInt8], status: FileStatus)? {
        guard let file = CacheFileSystem.readFile(at: layout.imagePath(metadata.localName)),
              file.bytes.count == metadata.byteCount,
              CacheContentDigest.sha256Hex(file.bytes) == metadata.sha256 else { return nil }
        return file
    }
}
