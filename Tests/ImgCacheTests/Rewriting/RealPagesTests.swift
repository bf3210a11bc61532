import Foundation
import Testing
@_spi(Fuzzing) @testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheMarkup

/// The real saved pages beside the repository (`../shared/pages`: news, shops, wikis, forums, in
/// many encodings; `MANIFEST.tsv` gives each one's declared charset, `base_urls.json` its URL),
/// rewritten as `imgcache` rewrites them: every byte outside the reported spans and `<base>` edits
/// stays as it was, the `<meta charset>` is found where it was, and a second pass rewrites
/// nothing. Where the folder is absent (a clone on its own) the test says so and checks nothing.
@Suite("Real saved pages")
struct RealPagesTests {
    static let folder = Fixtures.root.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared").appendingPathComponent("pages")

    struct Page {
        let path: String
        let url: String?
        let charset: String?
    }

    /// The pages of the manifest, with their URLs and declared charsets; nil without the folder.
    static func pages() throws -> [Page]? {
        let manifest = folder.appendingPathComponent("MANIFEST.tsv")
        guard FileManager.default.fileExists(atPath: manifest.path) else { return nil }
        let urls = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("base_urls.json")))
            as? [String: String] ?? [:]
        let lines = try String(contentsOf: manifest, encoding: .utf8).split(separator: "\n").dropFirst()
        return lines.map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            let charset = fields.count > 7 && !fields[7].isEmpty ? fields[7] : nil
            return Page(path: fields[0], url: urls[fields[0]], charset: charset)
        }
    }

    @Test("every real page is rewritten byte-exactly outside its references, keeps its meta charset, and rewrites nothing more on a second pass")
    func rewrittenByteExactly() async throws {
        // Seconds of synchronous work: off the cooperative pool, so the timing tests beside it keep their threads.
        try await offPool {
            guard let pages = try Self.pages() else {
                print("note: \(Self.folder.path) is not here; the real-page check is skipped")
                return
            }
            #expect(pages.count > 100)
            var rewrittenInAll = 0
            for page in pages {
                let input = try [UInt8](Data(contentsOf: Self.folder.appendingPathComponent(page.path)))
                let options = RewriteOptions(referenceStyle: .urlPrefix("imgcache://cache/"), transportEncodingLabel: page.charset)
                let rewriter = ImageRewriter(options: options)
                let pageURL = page.url.flatMap { BrowserURL($0) }
                let result = rewriter.rewrite(input, pageURL: pageURL)
                rewrittenInAll += result.rewrittenReferences.count
                do throws(PropertyViolation) {
                    try RewriterProperties.checkSplice(input: input, result: result, prefix: options.referenceStyle.prefix)
                } catch {
                    Issue.record("\(page.path): \(error.description)")
                    continue
                }
                if result.encodingSource != .byteOrderMark, result.encodingSource != .transport {
                    let before = input.withUnsafeBufferPointer { MetaCharsetPrescan.prescan($0) }
                    let after = result.bytes.withUnsafeBufferPointer { MetaCharsetPrescan.prescan($0) }
                    #expect(before == after, "\(page.path): the prescan finds \(String(describing: before)), then \(String(describing: after))")
                }
                if !result.rewrittenReferences.isEmpty {
                    let again = rewriter.rewrite(result.bytes, pageURL: pageURL)
                    #expect(again.encoding != result.encoding || again.rewrittenReferences.isEmpty,
                            "\(page.path): a second pass rewrote \(again.rewrittenReferences.count) more")
                }
            }
            // The 313 pages hold about 12,400 rewritable references: a rewriter that found few would pass the rest.
            #expect(rewrittenInAll > 10_000, "\(rewrittenInAll) references rewritten in all")
        }
    }
}
