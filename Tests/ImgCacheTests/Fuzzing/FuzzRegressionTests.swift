import Foundation
import Testing

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

    @Test("the rewriter's properties hold for every rewrite fixture, in every option variant")
    func rewriteFixtures() throws {
        let folder = Fixtures.root.appendingPathComponent("rewrite")
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
            let page = try Fixtures.bytes("rewrite/\(name)")
            // The options depend on the length: padding after the page runs it with each of them.
            for padding in 0..<32 {
                do {
                    try FuzzTarget.rewriter.check(page + Array(repeating: UInt8(ascii: "\n"), count: padding))
                } catch {
                    Issue.record("fixtures/rewrite/\(name) + \(padding) newlines: \(error.description)")
                }
            }
        }
    }
}
