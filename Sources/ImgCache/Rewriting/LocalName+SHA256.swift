import Crypto
#if canImport(CBoringSHA256)
import CBoringSHA256
#endif

extension LocalName.Digest {
    /// The SHA-256 of `bytes`: what a URL's local name is made of.
    ///
    /// Where swift-crypto builds BoringSSL (Linux and the other platforms without CryptoKit), its
    /// one-shot function is called directly: swift-crypto's `SHA256` allocates a context for each
    /// hash and copies and clears it to finish, which on pages of long `srcset`s cost as much as
    /// the hashing itself (callgrind: 8 such pages 661 M instructions through `SHA256`, 623 M
    /// through the one-shot function). Elsewhere swift-crypto's `SHA256` is CryptoKit's.
    init(sha256Of bytes: UnsafeBufferPointer<UInt8>) {
        #if canImport(CBoringSHA256)
        self.init(boringSHA256Of: bytes)
        #else
        self.init(cryptoSHA256Of: bytes)
        #endif
    }

    #if canImport(CBoringSHA256)
    /// BoringSSL's one-shot SHA-256.
    init(boringSHA256Of bytes: UnsafeBufferPointer<UInt8>) {
        var digest = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        withUnsafeMutableBytes(of: &digest) { raw in
            imgcache_boring_sha256(bytes.baseAddress, bytes.count, raw.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        self = withUnsafeBytes(of: digest) { Self(sha256Bytes: $0) }
    }
    #endif

    /// swift-crypto's SHA-256: what Apple platforms use, and what the tests hold the one-shot
    /// function to where both exist.
    init(cryptoSHA256Of bytes: UnsafeBufferPointer<UInt8>) {
        var hasher = SHA256()
        hasher.update(bufferPointer: UnsafeRawBufferPointer(bytes))
        self = hasher.finalize().withUnsafeBytes { Self(sha256Bytes: $0) }
    }

    /// The 32 bytes of a digest, as the hash functions write them.
    private init(sha256Bytes raw: UnsafeRawBufferPointer) {
        // Digest words are big-endian: byte 0 is the top byte of the first word.
        self.init(words: (UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                          UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
                          UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)),
                          UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self))))
    }
}
