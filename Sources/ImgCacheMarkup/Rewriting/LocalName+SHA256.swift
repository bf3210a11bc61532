import Crypto

extension LocalName.Digest {
    /// The SHA-256 of `bytes`: what a URL's local name is made of. swift-crypto's `SHA256`, which
    /// is CryptoKit's on Apple platforms and BoringSSL's elsewhere.
    init(sha256Of bytes: UnsafeBufferPointer<UInt8>) {
        var hasher = SHA256()
        hasher.update(bufferPointer: UnsafeRawBufferPointer(bytes))
        self = hasher.finalize().withUnsafeBytes { raw in
            // Digest words are big-endian: byte 0 is the top byte of the first word.
            Self(words: (UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                         UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
                         UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)),
                         UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self))))
        }
    }
}
