import ImgCacheSupport
/// What the index keeps of an image's bytes, to tell the file the cache wrote from one that was
/// cut short or changed since (``CacheEntryReader`` checks it before handing bytes out).
///
/// New entries get an XXH64: the check is against torn writes and other programs, not against
/// an attacker (whoever can change the files can change the index beside them), and XXH64 costs
/// a fraction of the SHA-256 that entries written before it still carry.
enum ContentChecksum: Sendable, Equatable {
    /// The XXH64 of the bytes, written `"xxh64":"<16 hex digits>"`.
    case xxh64(UInt64)
    /// The SHA-256 of the bytes as 64 lowercase hex digits, written `"sha256":"…"`: entries
    /// stored before XXH64 replaced it.
    case sha256(String)

    /// The checksum a new entry with these bytes gets.
    init(of bytes: [UInt8]) {
        self = .xxh64(XXH64.hash(bytes))
    }

    /// Whether `bytes` are the bytes this checksum was made of.
    func matches(_ bytes: [UInt8]) -> Bool {
        switch self {
        case .xxh64(let value): XXH64.hash(bytes) == value
        case .sha256(let hex): CacheContentDigest.sha256Hex(bytes) == hex
        }
    }

    /// The XXH64 an index field's value holds: exactly 16 lowercase hex digits, as written; nil
    /// for anything else. Both index readers (the general one and the fast line reader) use it.
    init?(xxh64Hex digits: some Collection<UInt8>) {
        guard digits.count == 16 else { return nil }
        var value: UInt64 = 0
        for byte in digits {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        self = .xxh64(value)
    }

    /// An XXH64 as the index writes it: 16 lowercase hex digits.
    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.utf8.count) + digits
    }
}
