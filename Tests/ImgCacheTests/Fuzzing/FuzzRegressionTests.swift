import Foundation
import Testing
@_spi(Fuzzing) @testable import ImgCache
@testable import ImgCacheMarkup

/// Replays every input saved under `fixtures/fuzz/<target>/` (what the fuzz targets found, and a
/// few samples of what each target reads) through the same property checks the fuzzers run, so
/// that a finding stays fixed. The fuzzers themselves live in `Fuzz/` (see `Fuzz/run.sh`).
@Suite("Fuzz findings stay fixed")
struct FuzzRegressionTests {
    @Test("every saved input keeps its target's properties", arguments: FuzzTarget.allCases)
    func savedInputs(target: FuzzTarget) throws {
        let folder = Fixtures.root.appendingPathComponent("fuzz").appendingPathComponent(target.rawValue)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(!names.isEmpty, "fixtures/fuzz/\(target.rawValue)/ holds no inputs")
        for name in names {
            let input = try Fixtures.bytes("fuzz/\(target.rawValue)/\(name)")
            do {
                try target.check(input)
            } catch {
                Issue.record("fixtures/fuzz/\(target.rawValue)/\(name): \(error.description)")
            }
        }
    }

    @Test("the rewriter's properties hold for every rewrite fixture, under each charset, prefix and fan-out")
    func rewriteFixtures() throws {
        let folder = Fixtures.root.appendingPathComponent("rewrite")
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
            let page = try Fixtures.bytes("rewrite/\(name)")
            // The options depend on the length: padding after the page gives each transport charset
            // (the length modulo 8), then the URL prefix and fan-out (bits 3 and 4).
            for padding in Array(0..<8) + [8, 16, 24] {
                do {
                    try FuzzTarget.rewriter.check(page + Array(repeating: UInt8(ascii: "\n"), count: padding))
                } catch {
                    Issue.record("fixtures/rewrite/\(name) + \(padding) newlines: \(error.description)")
                }
            }
        }
    }

    @Test("the rewriter check notices a byte changed outside the reported spans, and a name the cache never writes")
    func checksCanFail() throws {
        let input = try Fixtures.bytes("fuzz/rewriter/sample-base-and-images.html")
        let result = rewrite(input)
        #expect(!result.rewrittenReferences.isEmpty)
        try RewriterProperties.checkSplice(input: input, result: result, prefix: "images/")
        var tampered = result.bytes
        tampered[tampered.count - 2] = UInt8(ascii: "!")
        var broken = RewriteResult(bytes: tampered, references: result.references, encoding: result.encoding,
                                   encodingSource: result.encodingSource, warnings: result.warnings)
        broken.otherEdits = result.otherEdits
        #expect(throws: PropertyViolation.self) { try RewriterProperties.checkSplice(input: input, result: broken, prefix: "images/") }

        let name = String(repeating: "3f", count: 32) + ".png"
        #expect(isNameTheCacheWrites(name) && isNameTheCacheWrites("3f/" + name))
        #expect(!isNameTheCacheWrites("../" + name) && !isNameTheCacheWrites("ab/" + name) && !isNameTheCacheWrites(name + "/x"))
    }
}
