import Testing
@testable import ImgCache
@testable import ImgCacheMarkup

@Suite("The named character reference table")
struct NamedCharacterReferenceTableTests {
    @Test("read from its bytes, every entry is what a plain reading of its text gives")
    func matchesPlainReading() {
        var expected: [String: [Unicode.Scalar]] = [:]
        for entry in NamedCharacterReferences.packedTable.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let parts = entry.split(separator: "=", maxSplits: 1)
            expected[String(parts[0])] = parts[1].split(separator: ".").map { Unicode.Scalar(UInt32($0, radix: 16)!)! }
        }
        #expect(NamedCharacterReferences.table.count == NamedCharacterReferences.entryCount)
        #expect(NamedCharacterReferences.table == expected)
    }

    @Test("names with and without ';', one scalar and two, in the astral planes too")
    func knownEntries() {
        #expect(NamedCharacterReferences.lookup("amp;") == ["&"])
        #expect(NamedCharacterReferences.lookup("AElig") == ["\u{C6}"])
        #expect(NamedCharacterReferences.lookup("NotEqualTilde;") == ["\u{2242}", "\u{338}"])
        #expect(NamedCharacterReferences.lookup("Afr;") == ["\u{1D504}"])
        #expect(NamedCharacterReferences.lookup("zwnj;") == ["\u{200C}"])
        #expect(NamedCharacterReferences.lookup("notaname;") == nil)
    }
}
