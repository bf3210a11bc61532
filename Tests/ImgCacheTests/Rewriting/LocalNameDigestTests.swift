import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheMarkup

@Suite("The SHA-256 a local name is made of")
struct LocalNameDigestTests {
    private func hex(_ digest: LocalName.Digest) -> String {
        (0..<32).map { index in
            let byte = digest[index]
            return String(byte >> 4, radix: 16) + String(byte & 0x0F, radix: 16)
        }.joined()
    }

    private func digest(_ text: String) -> LocalName.Digest {
        Array(text.utf8).withUnsafeBufferPointer { LocalName.Digest(sha256Of: $0) }
    }

    @Test("the digests of the standard's test messages, and of an empty input")
    func knownDigests() {
        #expect(hex(digest("")) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex(digest("abc")) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex(digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test("a URL keeps the name earlier versions gave it, its fragment ignored")
    func namesStayAsTheyWere() throws {
        let naming = LocalImageNaming()
        let expected = "494a30704d4f32ac0b81739d18a66d3638d440cbc6f5669f6af66f840edee5ab.png"
        #expect(naming.localName(for: try #require(BrowserURL("https://example.com/a.png"))) == expected)
        #expect(naming.localName(for: try #require(BrowserURL("https://example.com/a.png#frag"))) == expected)
    }
}
