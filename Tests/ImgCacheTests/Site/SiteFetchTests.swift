import Foundation
import ImgCacheHTTPClient
import ImgCacheTestServer
import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheMarkup
@testable import ImgCacheStore

/// A generated site in a temporary folder, served by the test server under `/app/`:
/// nested pages, stylesheets at two depths with `@import` and a font, images shared by many
/// pages, a page without images, local assets.
private struct GeneratedSite {
    let server: TestImageServer
    let folder: TemporaryFolder
    /// Relative path → source text, for every page and stylesheet.
    var files: [String: String] = [:]
    /// Relative path → the image URL texts it contains, in order, each with the absolute URL.
    var references: [String: [(text: String, url: String)]] = [:]
    /// Every image path the server has.
    var imagePaths: Set<String> = []
    let base: String

    static let shared = (0..<5).map { "/app/shared/s\($0).png" }
    static let pageFolders = ["", "news/", "news/2026/", "docs/guide/", "docs/guide/deep/"]

    init(server: TestImageServer, folder: TemporaryFolder, slowImage: String? = nil) throws {
        self.server = server
        self.folder = folder
        base = server.url("/app/")
        for path in Self.shared { addImage(path) }
        // 15 pages at five depths: each uses every shared image (in three spellings) and three of its own.
        for index in 0..<15 {
            let dir = Self.pageFolders[index % Self.pageFolders.count]
            let depth = dir.split(separator: "/").count
            let up = String(repeating: "../", count: depth)
            let own = (0..<3).map { "/app/p\(index)/i\($0).\(["png", "jpg", "gif"][$0])" }
            own.forEach { addImage($0) }
            var refs: [(String, String)] = []
            var html = "<!doctype html><html><head><meta charset=utf-8><title>Page \(index) &amp; co</title>\n"
            html += "<link rel=stylesheet href=\"\(up)css/site.css\">\n<script src=\"\(up)js/app.js\"></script></head>\n<body>\n"
            html += "<img src=\"\(up)img/logo.png\" alt=logo>\n"
            for (n, path) in Self.shared.enumerated() {
                // Relative, root-relative and absolute spellings of the same images.
                let text = n % 3 == 0 ? up + String(path.dropFirst("/app/".count)) : n % 3 == 1 ? path : server.url(path)
                html += "<img src='\(text)'>\n"
                refs.append((text, server.url(path)))
            }
            let ownText = own.map { up + String($0.dropFirst("/app/".count)) }
            html += "<img srcset=\"\(ownText[0]) 1x, \(ownText[1]) 2x\" src=\"\(ownText[0])\">\n"
            refs += [(ownText[0], server.url(own[0])), (ownText[1], server.url(own[1])), (ownText[0], server.url(own[0]))]
            html += "<div style=\"background: url(&quot;\(ownText[2])&quot;) no-repeat\">x</div>\n</body></html>\n"
            refs.append((ownText[2], server.url(own[2])))
            let path = dir + "page\(index).html"
            files[path] = html
            references[path] = refs
        }
        files["docs/empty.html"] = "<!doctype html><p>No images here, only <a href=\"../index.html\">a link</a>.</p>\n"
        references["docs/empty.html"] = []
        // A page whose one image is slow: the others must not wait for it.
        if let slowImage {
            files["slow.html"] = "<img src=\"\(slowImage)\">"
            references["slow.html"] = [(slowImage, server.url("/app/\(slowImage)"))]
        }
        files["css/site.css"] = """
            @charset "utf-8";
            @import url(parts/more.css);
            @font-face { font-family: F; src: url(../fonts/f.woff2) format("woff2"); }
            body { background: #fff url(../bg/hero.jpg) repeat-x; }
            .icon { background-image: image-set("../bg/i1.png" 1x, "../bg/i2.png" 2x); }
            .logo { background: url('../img/logo.png'); }
            /* url(../bg/commented.png) is a comment */

            """
        references["css/site.css"] = [("../bg/hero.jpg", server.url("/app/bg/hero.jpg")), ("../bg/i1.png", server.url("/app/bg/i1.png")),
                                      ("../bg/i2.png", server.url("/app/bg/i2.png"))]
        ["/app/bg/hero.jpg", "/app/bg/i1.png", "/app/bg/i2.png"].forEach { addImage($0) }
        files["css/parts/more.css"] = ".more { list-style-image: url(\"/app/shared/s0.png\"); background: url(../../bg/deep.gif) }\n"
        references["css/parts/more.css"] = [("/app/shared/s0.png", server.url("/app/shared/s0.png")), ("../../bg/deep.gif", server.url("/app/bg/deep.gif"))]
        addImage("/app/bg/deep.gif")
        for (path, text) in files { try write(path, Array(text.utf8)) }
        try write("img/logo.png", TestImages.png(width: 3, height: 3))
        try write("fonts/f.woff2", Array("wOF2 not really".utf8))
        try write("js/app.js", Array("console.log('hi')\n".utf8))
        try write(".hidden/secret.txt", Array("not copied".utf8))
    }

    private mutating func addImage(_ path: String) {
        imagePaths.insert(path)
        let bytes = path.hasSuffix("jpg") ? TestImages.jpeg() : path.hasSuffix("gif") ? TestImages.gif() : TestImages.png(width: 2, height: 1)
        // Slow enough that pages' downloads overlap.
        server.route(path, .image(bytes: bytes, contentType: "image/x", delay: .milliseconds(150)))
    }

    func write(_ relativePath: String, _ bytes: [UInt8]) throws {
        let url = folder.url.appendingPathComponent("site").appendingPathComponent(relativePath)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    /// What the rewritten file must be: the source with each image URL text replaced by the
    /// cache path as seen from the file's folder, nothing else changed.
    func expectedOutput(_ relativePath: String) -> String {
        var text = files[relativePath]!
        let depth = relativePath.split(separator: "/").count - 1
        let prefix = String(repeating: "../", count: depth) + "images/"
        for (original, url) in references[relativePath]! {
            let name = LocalImageNaming().localName(for: BrowserURL(url)!)!
            for quote in ["'", "\"", "&quot;", "(", ""] {
                let closing = quote == "(" ? ")" : quote
                let needle = quote + original + (quote.isEmpty ? " " : closing)
                let replacement = quote + prefix + name + (quote.isEmpty ? " " : closing)
                text = text.replacingOccurrences(of: needle, with: replacement)
            }
        }
        return text
    }
}

@Suite("imgcache fetch SITE_DIR: a whole site in one run")
struct SiteFetchTests {
    private func manifest(_ folder: TemporaryFolder) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: folder.url.appendingPathComponent("Web/imgcache-manifest.json"))) as? [String: Any] ?? [:]
    }

    @Test("every page and stylesheet comes out with every image local, paths right from every depth, everything else identical; each image requested once; pages overlap")
    func wholeSite() async throws {
        let server = try await TestImageServer.start()
        let folder = try TemporaryFolder()
        let site = try GeneratedSite(server: server, folder: folder)
        let outcome = try await CommandRunner.runOffPool(
            ["fetch", "site", "--base-url", site.base, "--out", "Web", "--per-host", "64", "--quiet"], in: folder.url)
        #expect(outcome.status == 0, "\(outcome.stderr)")

        for path in site.files.keys.sorted() {
            let written = try String(contentsOfFile: folder.path("Web/\(path)"), encoding: .utf8)
            #expect(written == site.expectedOutput(path), "\(path)")
            for (_, url) in site.references[path]! {
                let name = LocalImageNaming().localName(for: BrowserURL(url)!)!
                #expect(FileManager.default.fileExists(atPath: folder.path("Web/images/\(name)")), "\(url)")
            }
        }
        // Each distinct image once, however many pages share it; the local logo and the font never.
        for path in site.imagePaths { #expect(server.requestCount(path) == 1, "\(path)") }
        #expect(server.totalRequests == site.imagePaths.count)
        // A page has 8 distinct images: more at once means several pages' downloads overlapped.
        #expect(server.maxConcurrentRequests > 8, "at most \(server.maxConcurrentRequests) at once")

        // The site's other files are copied (the same bytes), hidden ones are not.
        for asset in ["img/logo.png", "fonts/f.woff2", "js/app.js"] {
            #expect(FileManager.default.contents(atPath: folder.path("Web/\(asset)")) == FileManager.default.contents(atPath: folder.path("site/\(asset)")))
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path("Web/.hidden/secret.txt")))

        // The manifest: one record per page and stylesheet, the stylesheets' own images under
        // them, and one site-wide map listing every image.
        let object = try manifest(folder)
        let records = object["pages"] as? [[String: Any]] ?? []
        #expect(records.count == site.files.count)
        let stylesheet = records.first { ($0["input"] as? String)?.hasSuffix("css/site.css") == true }
        #expect(stylesheet?["kind"] as? String == "stylesheet")
        #expect(stylesheet?["pageURL"] as? String == server.url("/app/css/site.css"))
        let cssReferences = stylesheet?["references"] as? [[String: Any]] ?? []
        #expect(cssReferences.filter { $0["status"] as? String == "downloaded" }.compactMap { $0["url"] as? String }.sorted()
            == ["/app/bg/hero.jpg", "/app/bg/i1.png", "/app/bg/i2.png"].map(server.url))
        #expect(cssReferences.contains { $0["error"] as? String == "site-file" && ($0["original"] as? String) == "../img/logo.png" })
        let page = records.first { ($0["input"] as? String)?.hasSuffix("news/2026/page2.html") == true }
        #expect(page?["stylesheets"] as? [String] == [server.url("/app/css/site.css")])
        let map = object["images"] as? [String: String] ?? [:]
        #expect(Set(map.keys) == Set(site.imagePaths.map(server.url)))
        for (url, name) in map { #expect(name == LocalImageNaming().localName(for: BrowserURL(url)!)) }
        try await server.shutdown()
    }

    @Test("an app localises a site folder in-process through the library's session: the same files as the CLI writes, each image once, one refresh")
    func wholeSiteInProcess() async throws {
        let server = try await TestImageServer.start()
        let folder = try TemporaryFolder()
        let site = try GeneratedSite(server: server, folder: folder)
        let out = folder.path("Web")
        let cacheFolder = folder.path("Web/images")
        let plan = try LocalizationPlan(arguments: [folder.path("site")], out: out, cacheFolder: cacheFolder,
                                        baseURL: BrowserURL(site.base), copiesAssets: true)
        let session = LocalizationSession(.init(store: try ImageCacheStore(directory: cacheFolder), transport: AsyncHTTPClientTransport(),
                                                downloadPolicy: DownloadPolicy(perHostConcurrency: 64), debounce: .seconds(60)))
        let written = ThreadSafeLog<String>()
        let found = ThreadSafeLog<Int>()
        let result = await session.localize(plan, mode: .build, imagesFound: { _, count in found.append(count) },
                                            written: { input, _ in written.append(input.output ?? "") })
        let refresh = await session.finish()

        #expect(result.results.count == site.files.count)
        #expect(result.copyFailures.isEmpty)
        #expect(result.localized.count == site.files.count, "\(result.results)")
        #expect(result.localized.allSatisfy { $0.failures.isEmpty })
        for path in site.files.keys.sorted() {
            let text = try String(contentsOfFile: folder.path("Web/\(path)"), encoding: .utf8)
            #expect(text == site.expectedOutput(path), "\(path)")
        }
        #expect(Set(written.values) == Set(site.files.keys.map { folder.path("Web/\($0)") }), "one write per file in build mode")
        #expect(written.values.count == site.files.count)
        #expect(found.values.count == site.files.count)
        for path in site.imagePaths { #expect(server.requestCount(path) == 1, "\(path)") }
        #expect(FileManager.default.contents(atPath: folder.path("Web/js/app.js")) == FileManager.default.contents(atPath: folder.path("site/js/app.js")))
        #expect(refresh?.downloaded == site.imagePaths.count)
        #expect(session.outstandingCount == 0)
        try await server.shutdown()
    }

    @Test("a page whose images are in is written while a slow image of another page is still downloading")
    func pagesWrittenAsTheirImagesSettle() async throws {
        let server = try await TestImageServer.start()
        let folder = try TemporaryFolder()
        let site = try GeneratedSite(server: server, folder: folder, slowImage: "slow/late.png")
        server.route("/app/slow/late.png", .image(bytes: TestImages.png(), contentType: "image/png", delay: .seconds(5)))
        let outcome = try await CommandRunner.runOffPool(
            ["fetch", "site", "--base-url", site.base, "--out", "Web", "--per-host", "64", "--events", "ndjson", "--quiet",
             "--debounce", "0"], in: folder.url)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let events = String(decoding: outcome.stdout, as: UTF8.self).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let slowFinished = events.firstIndex { $0["event"] as? String == "finished" && ($0["url"] as? String)?.hasSuffix("late.png") == true }
        let pageEvents = events.enumerated().filter { $0.element["event"] as? String == "page" }
        #expect(pageEvents.count == site.files.count)
        let writtenEarly = pageEvents.filter { $0.offset < (slowFinished ?? -1) }
        #expect(writtenEarly.count == site.files.count - 1, "every file but slow.html before the slow image landed")
        #expect(pageEvents.last?.element["input"] as? String == folder.path("site/slow.html").replacingOccurrences(of: folder.url.path + "/", with: ""))
        #expect(events.filter { $0["event"] as? String == "refresh" }.count == 1, "one refresh for the whole run")
        try await server.shutdown()
    }

    @Test("outputs that would overwrite inputs, or land in the cache folder, are refused before anything is written")
    func conflicts() async throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path("site/images"), withIntermediateDirectories: true)
        try folder.write("site/index.html", "<img src=a.png>")
        try folder.write("site/images/own.png", "png")
        let intoItself = try await CommandRunner.runOffPool(["fetch", "site", "--out", "site"], in: folder.url)
        #expect(intoItself.status == 64)
        #expect(intoItself.stderr.contains("would be overwritten by its rewritten copy; choose another --out folder"), "\(intoItself.stderr)")
        let intoCache = try await CommandRunner.runOffPool(["fetch", "site", "--out", "Web"], in: folder.url)
        #expect(intoCache.status == 64)
        #expect(intoCache.stderr.contains("would be written into the cache folder"), "\(intoCache.stderr)")
        #expect(intoCache.stderr.contains("choose another --cache-dir"), "\(intoCache.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("Web")))
        try folder.write("index.html", "<p>")
        let twice = try await CommandRunner.runOffPool(["fetch", "site", "index.html", "--out", "Web", "--cache-dir", "cache"], in: folder.url)
        #expect(twice.status == 64)
        #expect(twice.stderr.contains("would both be written to"), "\(twice.stderr)")
        #expect(twice.stderr.contains("fetch them into different --out folders"), "\(twice.stderr)")
        let missing = try await CommandRunner.runOffPool(["fetch", "nowhere/", "--out", "Web"], in: folder.url)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("nowhere"), "\(missing.stderr)")
    }

    @Test("an output reached through a symbolic link (the --out folder, a folder in it, or the file itself) is refused when it is an input")
    func conflictsThroughSymbolicLinks() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path("site/docs"), withIntermediateDirectories: true)
        try folder.write("site/index.html", "<img src=a.png>")
        try folder.write("site/docs/guide.html", "<p>")
        try folder.write("site/style.css", "p{}")
        func problem(out: String) -> LocalizationPlan.Problem? {
            do {
                _ = try LocalizationPlan(arguments: [folder.path("site")], out: out, cacheFolder: folder.path("cache"),
                                         baseURL: nil, copiesAssets: true)
                return nil
            } catch {
                return error
            }
        }
        func refusal(out: String) -> String? { problem(out: out)?.description }
        // The --out folder is the site under another name.
        try FileManager.default.createSymbolicLink(atPath: folder.path("alias"), withDestinationPath: folder.path("site"))
        #expect(refusal(out: folder.path("alias"))?.contains("would be overwritten by its rewritten copy") == true)
        #expect(refusal(out: folder.path("alias"))?.contains("--") == false, "the library names what is wrong, not a command's option")
        let itself = try #require(problem(out: folder.path("alias")))
        #expect(itself.kind == .overwritesItself)
        #expect(itself.input.hasPrefix(folder.path("site") + "/"), "names an input of the site: \(itself.input)")
        #expect(itself.path == nil)
        // A folder inside --out leads back into the site.
        try FileManager.default.createDirectory(atPath: folder.path("out"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.path("out/docs"), withDestinationPath: folder.path("site/docs"))
        let throughFolder = refusal(out: folder.path("out"))
        #expect(throughFolder?.contains("guide.html") == true, "\(throughFolder ?? "accepted")")
        try FileManager.default.removeItem(atPath: folder.path("out/docs"))
        #expect(refusal(out: folder.path("out")) == nil, "the same --out without the link is fine")
        // One output file is a link to an input.
        try FileManager.default.createSymbolicLink(atPath: folder.path("out/style.css"), withDestinationPath: folder.path("site/index.html"))
        let throughFile = refusal(out: folder.path("out"))
        #expect(throughFile?.contains("would be written over the input") == true, "\(throughFile ?? "accepted")")
        let overwritten = try #require(problem(out: folder.path("out")))
        #expect(overwritten.kind == .overwritesInput)
        #expect(overwritten.path?.hasSuffix("site/index.html") == true, "the input overwritten: \(overwritten.path ?? "none")")
    }

    @Test("--no-copy writes only the rewritten pages and stylesheets; an --out inside the site is not read as input")
    func noCopyAndOutInside() async throws {
        let server = try await TestImageServer.start()
        server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path("site/js"), withIntermediateDirectories: true)
        try folder.write("site/index.html", "<img src=a.png>")
        try folder.write("site/js/app.js", "1")
        let first = try await CommandRunner.runOffPool(["fetch", "site", "--base-url", server.url("/"), "--out", "site/build", "--no-copy"], in: folder.url)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.path("site/build/index.html")))
        #expect(!FileManager.default.fileExists(atPath: folder.path("site/build/js/app.js")))
        // Run again: the output folder inside the site is not an input.
        let second = try await CommandRunner.runOffPool(["fetch", "site", "--base-url", server.url("/"), "--out", "site/build"], in: folder.url)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("site/build/build")))
        #expect(FileManager.default.fileExists(atPath: folder.path("site/build/js/app.js")))
        try await server.shutdown()
    }
}
