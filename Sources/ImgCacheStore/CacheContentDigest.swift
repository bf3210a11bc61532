import Crypto

/// A SHA-256 as 64 lowercase hex digits: what keeps the command line's shortened file names and
/// the pages an app opens apart, and the checksum of entries stored before ``ContentChecksum/xxh64(_:)``.
package enum CacheContentDigest {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    package static func sha256Hex(_ bytes: [UInt8]) -> String {
        var hex = [UInt8]()
        hex.reserveCapacity(64)
        for byte in SHA256.hash(data: bytes) {
            hex.append(hexDigits[Int(byte >> 4)])
            hex.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}
