import Foundation
import ImgCacheTestServer
import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheMarkup

@Suite("imgcache demo, end to end")
struct DemoCommandTests {
    /// The bundled page's image missing by design (`DemoScenario.bundled.missing`).
    private static let missing = "images/gallery-5.jpg"

    private func run(_ arguments: [String], in folder: TemporaryFolder) async throws -> CommandRunner.Outcome {
        try await CommandRunner.runOffPool(arguments, in: folder.url)
    }

    /// The manifest's references of the one page, as JSON objects.
    private func manifestEntries(_ folder: TemporaryFolder) throws -> (pageURL: String, entries: [[String: Any]]) {
        let data = try Data(contentsOf: folder.url.appendingPathComponent("out/imgcache-manifest.json"))
        let pages = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["pages"] as? [[String: Any]] ?? []
        return (pages.first?["pageURL"] as? String ?? "", pages.first?["references"] as? [[String: Any]] ?? [])
    }

    private func events(_ stdout: [UInt8]) -> [[String: Any]] {
        String(decoding: stdout, as: UTF8.self).split(separator: "\n").map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? ["unparsable": String(line)]
        }
    }

    @Test("the binary copied into an empty folder, away from its sources, serves the site it carries: the images it downloads are fixtures/site's")
    func copiedBinary() async throws {
        let folder = try TemporaryFolder()
        let copy = folder.url.appendingPathComponent("bin/imgcache")
        try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
        // Copied by `cp`, not by this process: a file this process holds open for writing is
        // inherited by whatever another test forks meanwhile, and the copy then fails to start
        // with "Text file busy" (ETXTBSY) until that child has exec'd.
        let cp = try Process.run(URL(fileURLWithPath: "/bin/cp"), arguments: [CommandRunner.executable.path, copy.path])
        cp.waitUntilExit()
        try #require(cp.terminationStatus == 0, "cp failed")
        let outcome = try await CommandRunner.runOffPool(["demo", "--out", "out", "--debounce", "0"], in: folder.url,
                                                         executable: copy)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        // The site it carries, not one found beside its sources (the build machine still has them).
        let fixtureSite = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../fixtures/site").standardizedFileURL
        let fixtureFiles = (FileManager.default.enumerator(atPath: fixtureSite.path)?.allObjects as? [String] ?? [])
            .filter { !$0.hasPrefix(".") && !$0.hasSuffix("/") }
            .filter { var isFolder: ObjCBool = false; return FileManager.default.fileExists(atPath: fixtureSite.appendingPathComponent($0).path, isDirectory: &isFolder) && !isFolder.boolValue }
        #expect(outcome.stderr.contains("serving the bundled site (\(fixtureFiles.count) files)"), "\(outcome.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.path("out/index.html")))

        // What it served is what the repository's fixtures/site holds, byte for byte.
        let site = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../fixtures/site/images").standardizedFileURL
        let fixtures = try FileManager.default.contentsOfDirectory(atPath: site.path).filter { $0 != Self.missing.dropFirst("images/".count) }
        let expected = Set(try fixtures.map { try Data(contentsOf: site.appendingPathComponent($0)) })
        let downloaded = try FileManager.default.contentsOfDirectory(atPath: folder.path("out/images")).filter { !$0.hasPrefix(".") }
        let served = Set(try downloaded.map { try Data(contentsOf: folder.url.appendingPathComponent("out/images/\($0)")) })
        #expect(!expected.isEmpty)
        #expect(served == expected, "\(served.count) images served, \(expected.count) in fixtures/site")
    }

    @Test("demo --quiet --events ndjson: exit 0, a fully local page, the images on disk, a refresh, the missing one failed")
    func demoRun() async throws {
        let folder = try TemporaryFolder()
        let outcome = try await run(["demo", "--out", "out", "--quiet", "--events", "ndjson", "--debounce", "0.2"], in: folder)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("imgcache: failed:"), "the missing image is expected, not a failure: \(outcome.stderr)")

        // The manifest: every image downloaded but the one missing by design.
        let (pageURL, entries) = try manifestEntries(folder)
        #expect(pageURL.hasPrefix("http://127.0.0.1:") && pageURL.hasSuffix("/index.html"))
        #expect(entries.count >= 20)
        let failed = entries.filter { $0["status"] as? String == "failed" }
        #expect(failed.map { $0["original"] as? String } == [Self.missing])
        #expect(failed.first?["error"] as? String == "HTTP 404")
        #expect(entries.allSatisfy { $0["status"] as? String == "downloaded" || $0["original"] as? String == Self.missing },
                "\(entries.map { ($0["original"] ?? "", $0["status"] ?? "") })")
        let missingPath = try #require(failed.first?["localPath"] as? String)

        // The page: every image reference is a local path, and each one's file exists except the missing one.
        let page = try [UInt8](Data(contentsOf: folder.url.appendingPathComponent("out/index.html")))
        let references = ImageRewriter().references(in: page, pageURL: nil).references
        #expect(references.count == entries.count)
        let namePattern = /images\/[0-9a-f]{64}\.(png|jpg|gif)/
        for reference in references {
            #expect(reference.original.wholeMatch(of: namePattern) != nil, "not a local image path: \(reference.original)")
            let exists = FileManager.default.fileExists(atPath: folder.path("out/" + reference.original))
            #expect(exists == (reference.original != missingPath), "\(reference.original)")
        }
        #expect(references.contains { $0.original == missingPath })
        // Independently of the library's parser: no path into the site's images/ folder is left.
        let pageText = String(decoding: page, as: UTF8.self)
        let leftovers = pageText.matches(of: /images\/[^"'\s),]+/).map { String($0.output) }.filter { $0.wholeMatch(of: namePattern) == nil }
        #expect(leftovers.isEmpty, "not rewritten: \(leftovers)")

        // The images: one valid image file per distinct downloaded URL.
        let images = try FileManager.default.contentsOfDirectory(atPath: folder.path("out/images")).filter { !$0.hasSuffix(".json") && !$0.hasPrefix(".") }
        let distinctDownloaded = Set(entries.filter { $0["status"] as? String == "downloaded" }.compactMap { $0["url"] as? String })
        #expect(images.count == distinctDownloaded.count && images.count >= 20, "\(images)")
        for name in images {
            let bytes = try [UInt8](Data(contentsOf: folder.url.appendingPathComponent("out/images/\(name)")))
            let isImage = bytes.starts(with: TestImages.pngSignature) || bytes.starts(with: [0xFF, 0xD8, 0xFF]) || bytes.starts(with: Array("GIF8".utf8))
            #expect(isImage, "\(name) is not a PNG, JPEG or GIF")
        }

        // The events: NDJSON only on standard output, a start per download, one refresh naming the missing image.
        let printed = events(outcome.stdout)
        #expect(printed.allSatisfy { $0["event"] is String }, "\(printed.filter { $0["event"] == nil })")
        #expect(printed.filter { $0["event"] as? String == "started" }.count == distinctDownloaded.count + 1)
        let refreshes = printed.filter { $0["event"] as? String == "refresh" }
        #expect(refreshes.count >= 1)
        let lastRefreshFailures = refreshes.last?["failed"] as? [[String: Any]] ?? []
        let allRefreshFailures = refreshes.flatMap { $0["failed"] as? [[String: Any]] ?? [] }
        #expect(allRefreshFailures.count == 1 && (allRefreshFailures.first?["url"] as? String ?? "").hasSuffix("/" + Self.missing),
                "\(refreshes) \(lastRefreshFailures)")
    }

    @Test("the page is written before the slow images arrive, fully rewritten, every other byte as served")
    func livePage() async throws {
        let folder = try TemporaryFolder()
        let outcome = try await run(["demo", "--out", "out", "--quiet"], in: folder)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.isEmpty)
        let (pageURL, entries) = try manifestEntries(folder)

        let fixture = try Fixtures.bytes("site/index.html")
        // Fetched by URL and written away from its server: its links become absolute too.
        var options = RewriteOptions(referenceStyle: .relativePath("images"))
        options.otherURLs = .absolute
        let expected = ImageRewriter(options: options).rewrite(fixture, pageURL: BrowserURL(pageURL))
        #expect(expected.bytes.text.contains("href=\"\(pageURL.dropLast("index.html".count))about.html\""))
        let written = try [UInt8](Data(contentsOf: folder.url.appendingPathComponent("out/index.html")))
        expectSameBytes(written, expected.bytes)

        // hero-960.jpg is served 1.5 s late: the page must be older than it by about that much.
        let slow = try #require(entries.first { $0["original"] as? String == "images/hero-960.jpg" }?["localPath"] as? String)
        func modified(_ path: String) throws -> Date {
            try #require(try FileManager.default.attributesOfItem(atPath: folder.path(path))[.modificationDate] as? Date)
        }
        let lead = try modified("out/" + slow).timeIntervalSince(try modified("out/index.html"))
        #expect(lead > 1.0, "the page was written only \(lead) s before the slowest image")
    }

    @Test("without --quiet: progress, the missing image explained, and how to open the page, all on standard error")
    func narration() async throws {
        let folder = try TemporaryFolder()
        let outcome = try await run(["demo", "--out", "out"], in: folder)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr.contains("missing by design"))
        #expect(outcome.stderr.contains("xdg-open out/index.html") || outcome.stderr.contains("open out/index.html"))
        #expect(outcome.stderr.contains("file://" + folder.path("out/index.html")))
        #expect(outcome.stderr.contains("out/images/"))
        #expect(outcome.stderr.contains("refresh"))
    }

    @Test("--site: another site's unexpected failure exits 2; a folder without index.html exits 1")
    func otherSites() async throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("site/images"), withIntermediateDirectories: true)
        try Data(TestImages.png()).write(to: folder.url.appendingPathComponent("site/images/ok.png"))
        try Data(TestImages.gif()).write(to: folder.url.appendingPathComponent("site/images/with space.gif"))
        try folder.write("site/index.html", "<img src=images/ok.png><img src='images/with%20space.gif'><img src=images/nothere.png>")
        let outcome = try await run(["demo", "--site", "site", "--out", "out", "--quiet"], in: folder)
        #expect(outcome.status == 2, "\(outcome.stderr)")
        let failures = outcome.stderr.split(separator: "\n").filter { $0.hasPrefix("imgcache: failed: ") }
        #expect(failures.count == 1 && failures[0].hasSuffix("/images/nothere.png: HTTP 404"), "\(outcome.stderr)")
        let (_, entries) = try manifestEntries(folder)
        #expect(entries.map { $0["status"] as? String } == ["downloaded", "downloaded", "failed"])

        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("empty"), withIntermediateDirectories: true)
        let empty = try await run(["demo", "--site", "empty", "--out", "elsewhere"], in: folder)
        #expect(empty.status == 1)
        #expect(empty.stderr.contains("has no index.html"), "\(empty.stderr)")
    }
}
