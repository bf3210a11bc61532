import Foundation
import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheMarkup

/// Files under the repository's `fixtures/` folder.
enum Fixtures {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures")

    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(path)))
    }
}

/// The local path the default options write for an absolute image URL.
func localPath(_ absoluteURL: String, folder: String = "images", naming: LocalImageNaming = LocalImageNaming()) -> String {
    guard let url = BrowserURL(absoluteURL), let name = naming.localName(for: url) else {
        fatalError("\(absoluteURL) is not an http(s) image URL")
    }
    return folder + "/" + name
}

extension Array where Element == UInt8 {
    /// These bytes with the `occurrence`-th (1-based) occurrence of `old` replaced by `new`;
    /// fails loudly when `old` does not occur that often, so an expectation cannot pass by accident.
    func replacing(_ old: [UInt8], with new: [UInt8], occurrence: Int = 1) -> [UInt8] {
        var seen = 0
        var i = 0
        while i + old.count <= count {
            if self[i..<(i + old.count)].elementsEqual(old) {
                seen += 1
                if seen == occurrence {
                    return Array(self[..<i]) + new + Array(self[(i + old.count)...])
                }
            }
            i += 1
        }
        fatalError("'\(String(decoding: old, as: UTF8.self))' occurs \(seen) times, not \(occurrence)")
    }

    func replacing(_ old: String, with new: String, occurrence: Int = 1) -> [UInt8] {
        replacing(Array(old.utf8), with: Array(new.utf8), occurrence: occurrence)
    }

    var text: String { String(decoding: self, as: UTF8.self) }
}

func rewrite(_ html: String, pageURL: String? = "https://example.com/dir/page.html",
             options: RewriteOptions = RewriteOptions(), naming: LocalImageNaming = LocalImageNaming()) -> RewriteResult {
    ImageRewriter(options: options, naming: naming).rewrite(Array(html.utf8), pageURL: pageURL.flatMap { BrowserURL($0) })
}

func rewrite(_ bytes: [UInt8], pageURL: String? = "https://example.com/dir/page.html",
             options: RewriteOptions = RewriteOptions()) -> RewriteResult {
    ImageRewriter(options: options).rewrite(bytes, pageURL: pageURL.flatMap { BrowserURL($0) })
}

/// Expects two pages to be byte-identical; on failure, says where they first differ, in text.
func expectSameBytes(_ actual: [UInt8], _ expected: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
    guard actual != expected else { return }
    let offset = zip(actual, expected).prefix { $0 == $1 }.count
    let from = max(0, offset - 40)
    let actualContext = String(decoding: actual[from..<min(actual.count, offset + 60)], as: UTF8.self)
    let expectedContext = String(decoding: expected[from..<min(expected.count, offset + 60)], as: UTF8.self)
    Issue.record("bytes differ at offset \(offset) (sizes \(actual.count) vs \(expected.count)):\n  actual:   …\(actualContext)…\n  expected: …\(expectedContext)…",
                 sourceLocation: sourceLocation)
}
