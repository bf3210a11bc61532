import Foundation
import Testing
@testable import ImgCache
@testable import ImgCacheSupport
@testable import ImgCacheStore

@Suite("Checksums of cached images")
struct ContentChecksumTests {
    /// Bytes that differ from one position to the next, `count` of them.
    private static func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(($0 * 7 + 3) % 251) }
    }

    /// XXH64 values given by the reference implementation (libxxhash, through Python's `xxhash`),
    /// at lengths that take each of the algorithm's paths: under 4, 4 and 8-byte tails, one
    /// stripe of 32 bytes and more, and a long input.
    @Test("XXH64 gives the reference implementation's values", arguments: [
        (3, 0x31D2_363F_52E5_64C9), (4, 0x9BB6_4B7D_66EE_9FDA), (7, 0x9A7B_1499_59CE_60D8), (8, 0xDAB9_9D95_C6F9_0092),
        (12, 0xD52E_4078_33AF_5133), (31, 0xA2AA_5F33_CC4A_6119), (32, 0x23C3_C17E_F790_FD97), (33, 0x50A7_CFC7_BA58_8784),
        (63, 0xF143_8F15_B9ED_16E9), (64, 0x2CD9_90A1_BEED_6894), (100, 0x778E_26DF_8290_F456), (1000, 0x021F_7A74_2408_5EA4),
        (65_537, 0x4A72_535E_2003_D1E3),
    ] as [(Int, UInt64)])
    func referenceValues(count: Int, expected: UInt64) {
        #expect(XXH64.hash(Self.bytes(count)) == expected)
    }

    @Test("XXH64 of text from the specification's examples")
    func referenceText() {
        #expect(XXH64.hash([]) == 0xEF46_DB37_51D8_E999)
        #expect(XXH64.hash(Array("a".utf8)) == 0xD24E_C4F1_A98C_6E5B)
        #expect(XXH64.hash(Array("abc".utf8)) == 0x44BC_2CF5_AD77_0999)
        #expect(XXH64.hash(Array("Nobody inspects the spammish repetition".utf8)) == 0xFBCE_A83C_8A37_8BF1)
    }

    @Test("a checksum matches its own bytes and no others: one byte changed, one cut, one added")
    func matchesOnlyItsBytes() {
        let bytes = Self.bytes(21_345)
        for checksum in [ContentChecksum(of: bytes), .sha256(CacheContentDigest.sha256Hex(bytes))] {
            #expect(checksum.matches(bytes))
            var changed = bytes
            changed[10_000] ^= 0x01
            #expect(!checksum.matches(changed))
            #expect(!checksum.matches(Array(bytes.dropLast())))
            #expect(!checksum.matches(bytes + [0]))
        }
    }

    @Test("an entry written with a SHA-256, before XXH64, is still found and served, and refused once its bytes change")
    func entryWithSHA256() throws {
        let folder = try CacheTestFolder()
        let url = CacheTestData.url("old")
        let bytes = CacheTestData.bytes(3_000, seed: 4)
        let stored = try ImageCacheStore(directory: folder.path).storeEntry(bytes, for: url, contentType: "image/png", etag: nil, lastModified: nil)
        #expect(stored.checksum == .xxh64(XXH64.hash(bytes)))

        // The same entry as a build before XXH64 wrote it.
        var old = stored
        old.checksum = .sha256(CacheContentDigest.sha256Hex(bytes))
        let line = CacheIndexRecord.entry(old).encoded()
        #expect(String(decoding: line, as: UTF8.self).contains("\"sha256\":\"\(CacheContentDigest.sha256Hex(bytes))\""))
        try Data(line).write(to: URL(fileURLWithPath: folder.path + "/" + CacheFileLayout.indexFileName))
        try? FileManager.default.removeItem(atPath: folder.path + "/" + CacheLookupTable.fileName)

        let store = try ImageCacheStore(directory: folder.path)
        #expect(store.contents(for: url)?.bytes == bytes)
        guard case .fresh(let found) = store.lookup(url) else { Issue.record("the old entry should be found"); return }
        #expect(found.checksum == old.checksum)

        // Other bytes of the same length: the SHA-256 tells them apart.
        var other = bytes
        other[1_500] ^= 0xFF
        try Data(other).write(to: URL(fileURLWithPath: folder.path + "/" + stored.localName))
        #expect(try ImageCacheStore(directory: folder.path).contents(for: url) == nil)
    }
}
