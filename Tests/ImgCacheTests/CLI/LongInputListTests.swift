import Foundation
import Testing
@testable import ImgCache

/// Command lines with hundreds of inputs, as a shell's `*.html` makes them: read in one pass
/// (ArgumentParser alone takes time that grows with the square of their number), and read as
/// ArgumentParser reads them.
@Suite("imgcache with hundreds of inputs")
struct LongInputListTests {
    /// More pages than the command sets aside for its own reading.
    static let pageCount = 250

    static func pages(in folder: TemporaryFolder) throws -> [String] {
        try (0..<pageCount).map { index in
            let name = String(format: "page%03d.html", index)
            try folder.write(name, "<p>\(index)</p><img src=\"img/\(index % 7).png\" alt=x>")
            return name
        }
    }

    @Test("rewrite writes every page of a long list with the options given before, among and after them, as with the pages after --")
    func rewriteManyPages() async throws {
        let folder = try TemporaryFolder()
        let pages = try Self.pages(in: folder)
        let half = pages.count / 2
        let listed = try await CommandRunner.runOffPool(
            ["rewrite", "--out", "Listed"] + pages[..<half] + ["--base-url=https://example.com/"] + pages[half...] + ["--quiet"],
            in: folder.url)
        #expect(listed.status == 0, "\(listed.stderr)")
        // After `--` every argument is a page: ArgumentParser reads this one whole.
        let terminated = try await CommandRunner.runOffPool(
            ["rewrite", "--out", "Terminated", "--base-url", "https://example.com/", "--quiet", "--"] + pages, in: folder.url)
        #expect(terminated.status == 0, "\(terminated.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: folder.path("Listed")).sorted()
        #expect(written == pages)
        for page in pages {
            let rewritten = try String(contentsOfFile: folder.path("Listed/\(page)"), encoding: .utf8)
            #expect(!rewritten.contains("src=\"img/"), "\(page) was not rewritten with the base URL: \(rewritten)")
            #expect(try rewritten == String(contentsOfFile: folder.path("Terminated/\(page)"), encoding: .utf8))
        }
    }

    @Test("fetch takes a long list of pages")
    func fetchManyPages() async throws {
        let folder = try TemporaryFolder()
        let pages = try (0..<Self.pageCount).map { index in
            let name = "page\(index).html"
            try folder.write(name, "<p>\(index)</p>")
            return name
        }
        let outcome = try await CommandRunner.runOffPool(["fetch"] + pages + ["--out", "Out", "--quiet"], in: folder.url)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("Out")).filter { $0.hasSuffix(".html") }.count == pages.count)
    }

    @Test("a usage error only the whole list shows is reported as ArgumentParser reports it, and nothing is written")
    func errorsOfTheWholeList() async throws {
        let folder = try TemporaryFolder()
        let pages = try Self.pages(in: folder)
        let output = try await CommandRunner.runOffPool(["rewrite"] + pages + ["--output", "one.html"], in: folder.url)
        #expect(output.status == 64)
        #expect(output.stderr.contains("--output takes one page"))
        #expect(output.stderr.contains("imgcache rewrite"), "the usage line names the command: \(output.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("one.html")))

        let url = try await CommandRunner.runOffPool(["watch"] + pages + ["https://example.com/page.html", "--out", "Out"], in: folder.url)
        #expect(url.status == 64)
        #expect(url.stderr.contains("watch takes files, not URLs"))
        #expect(!FileManager.default.fileExists(atPath: folder.path("Out")))
    }

    @Test("an unknown option or a missing value among a long list is a usage error naming it")
    func unknownOption() async throws {
        let folder = try TemporaryFolder()
        let pages = try Self.pages(in: folder)
        let unknown = try await CommandRunner.runOffPool(["rewrite"] + pages + ["--bogus", "--out", "Out"], in: folder.url)
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("Unknown option '--bogus'"))
        let missing = try await CommandRunner.runOffPool(["rewrite"] + pages + ["--out"], in: folder.url)
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("--out"))
        #expect(!FileManager.default.fileExists(atPath: folder.path("Out")))
    }

    @Test("cache remove takes a long list of URLs, and names a bad one among them")
    func cacheRemoveManyURLs() async throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path("Cache"), withIntermediateDirectories: true)
        let urls = (0..<Self.pageCount).map { "https://example.com/img/\($0).png" }
        let removed = try await CommandRunner.runOffPool(["cache", "remove"] + urls + ["--cache-dir", "Cache"], in: folder.url)
        // None was cached: each is named as missing, so every one reached the command.
        #expect(removed.status == 2, "\(removed.stderr)")
        #expect(removed.stderr.split(separator: "\n").filter { $0.contains("was not in the cache") }.count == urls.count)
        let bad = try await CommandRunner.runOffPool(["cache", "remove"] + urls + ["img/relative.png", "--cache-dir", "Cache"], in: folder.url)
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("'img/relative.png' is not an absolute URL"))
    }
}
