import Foundation
import ImgCacheTestServer
import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheMarkup
@testable import ImgCacheStore

@Suite("imgcache fetch and cache, end to end")
struct FetchCommandTests {
    private func run(_ arguments: [String], in folder: TemporaryFolder) async throws -> CommandRunner.Outcome {
        try await CommandRunner.runOffPool(arguments, in: folder.url)
    }

    private func manifest(_ folder: TemporaryFolder, _ path: String = "out/imgcache-manifest.json") throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: folder.url.appendingPathComponent(path))) as? [String: Any] ?? [:]
    }

    @Test("build mode: cached images are rewritten, failed ones stay remote, exit 2 with one line per failure, manifest says why")
    func buildModeWithFailures() async throws {
        let server = try await TestImageServer.start()
        server.route("/good.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        server.route("/missing.png", .status(404))
        server.route("/fake.png", .status(200, body: Array("<html>error</html>".utf8), contentType: "text/html"))
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<img src=/good.png><img src=/missing.png><img src='/fake.png'><img src=data:x>")
        let outcome = try await run(["fetch", "page.html", "--base-url", server.url("/page.html"), "--out", "out", "--retries", "0"], in: folder)
        #expect(outcome.status == 2, "\(outcome.stderr)")
        let good = LocalImageNaming().localName(for: BrowserURL(server.url("/good.png"))!)!
        let page = try String(contentsOfFile: folder.path("out/page.html"), encoding: .utf8)
        #expect(page == "<img src=images/\(good)><img src=/missing.png><img src='/fake.png'><img src=data:x>")
        #expect(FileManager.default.fileExists(atPath: folder.path("out/images/\(good)")))
        let failureLines = outcome.stderr.split(separator: "\n").filter { $0.hasPrefix("imgcache: failed: ") }
        #expect(failureLines.count == 2)
        #expect(failureLines.contains { $0.contains("/missing.png: HTTP 404") })
        #expect(failureLines.contains { $0.contains("/fake.png: not an image") })
        let pages = try manifest(folder)["pages"] as? [[String: Any]] ?? []
        let entries = pages.first?["references"] as? [[String: Any]] ?? []
        #expect(entries.map { $0["status"] as? String } == ["downloaded", "failed", "failed", "skipped"])
        #expect(entries[0]["localPath"] as? String == "images/\(good)")
        #expect(entries[0]["contentType"] as? String == "image/png")
        #expect(entries[1]["error"] as? String == "HTTP 404")
        try await server.shutdown()
    }

    @Test("by default a picture's WebP and AVIF sources are localised with its JPEG: the source a browser picks is on disk offline")
    func pictureSourcesOfModernTypes() async throws {
        let server = try await TestImageServer.start()
        let webp = Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WEBPVP8 ".utf8) + [UInt8](repeating: 0, count: 24)
        let avif: [UInt8] = [0, 0, 0, 0x1C] + Array("ftypavif".utf8) + [0, 0, 0, 0] + Array("avifmif1miaf".utf8)
        server.route("/a.avif", .image(bytes: avif, contentType: "image/avif"))
        server.route("/a.webp", .image(bytes: webp, contentType: "image/webp"))
        server.route("/a.jpg", .image(bytes: TestImages.jpeg(), contentType: "image/jpeg"))
        let folder = try TemporaryFolder()
        try folder.write("page.html", """
            <picture><source type="image/avif" srcset="/a.avif"><source type="image/webp" srcset="/a.webp"><img src="/a.jpg"></picture>
            """)
        let outcome = try await run(["fetch", "page.html", "--base-url", server.url("/page.html"), "--out", "out"], in: folder)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let naming = LocalImageNaming()
        let names = ["/a.avif", "/a.webp", "/a.jpg"].map { naming.localName(for: BrowserURL(server.url($0))!)! }
        let page = try String(contentsOfFile: folder.path("out/page.html"), encoding: .utf8)
        #expect(page == """
            <picture><source type="image/avif" srcset="images/\(names[0])"><source type="image/webp" srcset="images/\(names[1])"><img src="images/\(names[2])"></picture>
            """)
        #expect(try Data(contentsOf: folder.url.appendingPathComponent("out/images/\(names[0])")) == Data(avif))
        #expect(try Data(contentsOf: folder.url.appendingPathComponent("out/images/\(names[1])")) == Data(webp))
        try await server.shutdown()
    }

    @Test("what rewriting a page noticed is a warning naming the page, for a file given alone and for a site's files")
    func pageWarnings() async throws {
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<img src=rel.png>")
        try FileManager.default.createDirectory(atPath: folder.path("site"), withIntermediateDirectories: true)
        try folder.write("site/a.html", "<meta charset=x-klingon><img src=b.png>")
        let single = try await run(["fetch", "page.html", "--out", "out", "--quiet"], in: folder)
        #expect(single.status == 0, "\(single.stderr)")
        #expect(single.stderr.contains("imgcache: warning: page.html: 1 relative image URL was left as they were: the page's URL is not known (give a base URL)."),
                "\(single.stderr)")
        let site = try await run(["fetch", "site", "--out", "web", "--quiet"], in: folder)
        #expect(site.status == 0, "\(site.stderr)")
        #expect(site.stderr.contains("imgcache: warning: site/a.html: The page declares the unknown encoding label \"x-klingon\"; it was ignored."),
                "\(site.stderr)")
    }

    @Test("a second run against a warm cache makes no request and exits 0")
    func warmRun() async throws {
        let server = try await TestImageServer.start()
        for name in ["a.png", "b.jpg", "c.gif"] {
            let bytes = name.hasSuffix("png") ? TestImages.png() : name.hasSuffix("jpg") ? TestImages.jpeg() : TestImages.gif()
            server.route("/\(name)", .image(bytes: bytes, contentType: "image/x"))
        }
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<img src=a.png srcset='b.jpg 2x'><div style='background:url(c.gif)'></div><img src=a.png>")
        let first = try await run(["fetch", "page.html", "--base-url", server.url("/"), "--out", "out"], in: folder)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(server.totalRequests == 3)
        let second = try await run(["fetch", "page.html", "--base-url", server.url("/"), "--out", "out"], in: folder)
        #expect(second.status == 0)
        #expect(server.totalRequests == 3)
        let pages = try manifest(folder)["pages"] as? [[String: Any]] ?? []
        let statuses = (pages.first?["references"] as? [[String: Any]] ?? []).map { $0["status"] as? String }
        #expect(statuses == ["cached", "cached", "cached", "cached"])
        try await server.shutdown()
    }

    @Test("a page given by URL is fetched, its URL is the base, and it is written as its last path component")
    func pageByURL() async throws {
        let server = try await TestImageServer.start()
        server.route("/blog/post.html", .status(200, body: Array("<p><img src=pic.png></p>".utf8), contentType: "text/html; charset=utf-8"))
        server.route("/blog/pic.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        let folder = try TemporaryFolder()
        let outcome = try await run(["fetch", server.url("/blog/post.html"), "--out", "site"], in: folder)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let name = LocalImageNaming().localName(for: BrowserURL(server.url("/blog/pic.png"))!)!
        #expect(try String(contentsOfFile: folder.path("site/post.html"), encoding: .utf8) == "<p><img src=images/\(name)></p>")
        try await server.shutdown()
    }

    @Test("a page fetched by URL gets absolute links, a file keeps them as written, each option turns that either way, and the manifest says which")
    func absoluteLinks() async throws {
        let server = try await TestImageServer.start()
        let page = "<link rel=stylesheet href=css/site.css><a href=next.html>next</a><img src=pic.png>"
        server.route("/blog/post.html", .status(200, body: Array(page.utf8), contentType: "text/html; charset=utf-8"))
        server.route("/blog/pic.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        let folder = try TemporaryFolder()
        try page.write(toFile: folder.path("post.html"), atomically: true, encoding: .utf8)
        let name = "images/" + LocalImageNaming().localName(for: BrowserURL(server.url("/blog/pic.png"))!)!
        let absolute = "<link rel=stylesheet href=\(server.url("/blog/css/site.css"))><a href=\(server.url("/blog/next.html"))>next</a><img src=\(name)>"
        let asWritten = "<link rel=stylesheet href=css/site.css><a href=next.html>next</a><img src=\(name)>"
        func manifestFlag(_ out: String) throws -> Bool? {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            let data = try Data(contentsOf: URL(fileURLWithPath: folder.path("\(out)/imgcache-manifest.json")))
            return try decoder.decode(FetchManifest.self, from: data).pages.first?.absoluteLinks
        }
        let cases: [(arguments: [String], expected: String, flag: Bool)] = [
            ([server.url("/blog/post.html")], absolute, true),
            ([server.url("/blog/post.html"), "--no-absolute-links"], asWritten, false),
            ([folder.path("post.html"), "--base-url", server.url("/blog/post.html")], asWritten, false),
            ([folder.path("post.html"), "--base-url", server.url("/blog/post.html"), "--absolute-links"], absolute, true),
        ]
        for (number, (arguments, expected, flag)) in cases.enumerated() {
            let out = "out\(number)"
            let outcome = try await run(["fetch"] + arguments + ["--out", out, "--quiet"], in: folder)
            #expect(outcome.status == 0, "\(arguments): \(outcome.stderr)")
            #expect(try String(contentsOfFile: folder.path("\(out)/post.html"), encoding: .utf8) == expected, "\(arguments)")
            #expect(try manifestFlag(out) == flag, "\(arguments)")
        }
        try await server.shutdown()
    }

    @Test("live mode writes the fully rewritten page even for images that then fail")
    func liveMode() async throws {
        let server = try await TestImageServer.start()
        server.route("/ok.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        server.route("/gone.png", .status(410))
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<img src=ok.png><img src=gone.png>")
        let outcome = try await run(["fetch", "page.html", "--base-url", server.url("/"), "--out", "out", "--mode", "live"], in: folder)
        #expect(outcome.status == 2)
        let naming = LocalImageNaming()
        let ok = naming.localName(for: BrowserURL(server.url("/ok.png"))!)!
        let gone = naming.localName(for: BrowserURL(server.url("/gone.png"))!)!
        #expect(try String(contentsOfFile: folder.path("out/page.html"), encoding: .utf8) == "<img src=images/\(ok)><img src=images/\(gone)>")
        try await server.shutdown()
    }

    @Test("two processes filling one cache folder at once both succeed and leave a consistent cache")
    func twoProcesses() async throws {
        let server = try await TestImageServer.start()
        var html = ""
        for i in 0..<60 {
            server.route("/i\(i).png", .image(bytes: TestImages.png(width: 1 + i % 7, height: 2), contentType: "image/png", delay: .milliseconds(5)))
            html += "<img src=i\(i).png>"
        }
        let folder = try TemporaryFolder()
        try folder.write("one.html", html)
        try folder.write("two.html", html)
        async let first = run(["fetch", "one.html", "--base-url", server.url("/"), "--out", "out1", "--cache-dir", "shared"], in: folder)
        async let second = run(["fetch", "two.html", "--base-url", server.url("/"), "--out", "out2", "--cache-dir", "shared"], in: folder)
        let (a, b) = try await (first, second)
        #expect(a.status == 0, "\(a.stderr)")
        #expect(b.status == 0, "\(b.stderr)")
        let stats = try await run(["cache", "stats", "--cache-dir", "shared", "--json"], in: folder)
        let object = try JSONSerialization.jsonObject(with: Data(stats.stdout)) as? [String: Any] ?? [:]
        #expect(object["entries"] as? Int == 60)
        let store = try ImageCacheStore(directory: folder.path("shared"))
        #expect(store.verify().isEmpty)
        #expect(!folder.allFiles().contains { $0.contains(".tmp") })
        try await server.shutdown()
    }

    @Test("cache stats, remove and clear")
    func cacheCommands() async throws {
        let server = try await TestImageServer.start()
        server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        server.route("/b.gif", .image(bytes: TestImages.gif(), contentType: "image/gif"))
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<img src=a.png><img src=b.gif>")
        #expect(try await run(["fetch", "page.html", "--base-url", server.url("/"), "--out", "out"], in: folder).status == 0)
        let stats = try await run(["cache", "stats", "--cache-dir", "out/images"], in: folder)
        #expect(stats.stdout.text.contains("entries: 2"))
        #expect(stats.stdout.text.contains("bytes: \(TestImages.png().count + TestImages.gif().count)"))
        let removed = try await run(["cache", "remove", server.url("/a.png"), "--cache-dir", "out/images"], in: folder)
        #expect(removed.status == 0)
        let notThere = try await run(["cache", "remove", server.url("/a.png"), "--cache-dir", "out/images"], in: folder)
        #expect(notThere.status == 2)
        let cleared = try await run(["cache", "clear", "--cache-dir", "out/images"], in: folder)
        #expect(cleared.stdout.text == "removed 1 entries\n")
        let missing = try await run(["cache", "stats", "--cache-dir", "no-such-folder"], in: folder)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no-such-folder"))
        try await server.shutdown()
    }

    @Test("--events ndjson prints every event, one refresh at the end runs --on-refresh with the summary, progress goes to stderr")
    func eventsAndRefresh() async throws {
        let server = try await TestImageServer.start()
        server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        server.route("/b.gif", .image(bytes: TestImages.gif(), contentType: "image/gif", delay: .milliseconds(100)))
        server.route("/c.png", .status(404))
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<img src=a.png><img src=b.gif><img src=c.png><img src=a.png>")
        let outcome = try await run([
            "fetch", "page.html", "--base-url", server.url("/"), "--out", "out", "--retries", "0", "--events", "ndjson",
            "--on-refresh", "echo \"$IMGCACHE_DOWNLOADED $IMGCACHE_FAILED $IMGCACHE_BYTES\" > refreshed.txt",
        ], in: folder)
        #expect(outcome.status == 2)
        let events = outcome.stdout.text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let names = events.compactMap { $0["event"] as? String }
        #expect(names.count == outcome.stdout.text.split(separator: "\n").count, "every line is a JSON object")
        #expect(names.filter { $0 == "started" }.count == 3)
        #expect(names.filter { $0 == "finished" }.count == 2)
        #expect(names.filter { $0 == "failed" }.count == 1)
        #expect(names.last == "refresh")
        #expect(names.filter { $0 == "refresh" }.count == 1)
        let failed = try #require(events.first { $0["event"] as? String == "failed" })
        #expect(failed["url"] as? String == server.url("/c.png"))
        #expect((failed["localPath"] as? String)?.hasPrefix("images/") == true)
        let refresh = try #require(events.last)
        #expect(refresh["downloaded"] as? Int == 2)
        let bytes = TestImages.png().count + TestImages.gif().count
        #expect(try String(contentsOfFile: folder.path("refreshed.txt"), encoding: .utf8) == "2 1 \(bytes)\n")
        #expect(outcome.stderr.contains("imgcache: 3/3 images"))
        try await server.shutdown()
    }

    @Test("--on-refresh prints to the terminal with the failed URLs in its environment; a command that fails is reported with its exit status")
    func refreshHookThatFails() async throws {
        let server = try await TestImageServer.start()
        server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        server.route("/gone.png", .status(404))
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<img src=a.png><img src=gone.png>")
        let outcome = try await run([
            "fetch", "page.html", "--base-url", server.url("/"), "--out", "out", "--retries", "0", "--quiet",
            "--on-refresh", "echo \"hook saw: $IMGCACHE_FAILED_URLS\"; exit 3",
        ], in: folder)
        #expect(outcome.status == 2, "one image failed; the hook's status does not change the exit status")
        #expect(outcome.stdout.text == "hook saw: \(server.url("/gone.png"))\n")
        #expect(outcome.stderr.contains("imgcache: warning: --on-refresh command exited with status 3"), "\(outcome.stderr)")
        try await server.shutdown()
    }

    @Test("--on-refresh runs however many URLs failed: all of them in IMGCACHE_FAILED_URLS_FILE, removed after, the variable cut to 64 KiB")
    func refreshHookWithThousandsOfFailures() async throws {
        // 1,000 URLs of about 200 bytes: 200 KB, past the 128 KiB Linux allows one environment
        // string, which kept the hook from starting when the variable held them all.
        let server = try await TestImageServer.start()
        let padding = String(repeating: "x", count: 160)
        let paths = (0..<1000).map { String(format: "/missing/%04d-\(padding).png", $0) }
        let folder = try TemporaryFolder()
        try folder.write("page.html", paths.map { "<img src=\"\($0)\">" }.joined(separator: "\n"))
        let hook = #"touch "$MARK"; cp "$IMGCACHE_FAILED_URLS_FILE" "$COPY"; echo "$IMGCACHE_FAILED_URLS_FILE" > "$WHERE"; "#
            + #"printf '%s' "$IMGCACHE_FAILED_URLS" > "$CAPPED"; echo "$IMGCACHE_FAILED $IMGCACHE_FAILED_URLS_TRUNCATED" > "$COUNTS""#
        let outcome = try await CommandRunner.runOffPool(
            ["fetch", "page.html", "--base-url", server.url("/"), "--out", "out", "--retries", "0", "--quiet", "--on-refresh", hook],
            in: folder.url,
            environment: ["MARK": folder.path("ran"), "COPY": folder.path("copy.txt"), "WHERE": folder.path("where.txt"),
                          "CAPPED": folder.path("capped.txt"), "COUNTS": folder.path("counts.txt")])
        #expect(outcome.status == 2, "\(outcome.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.path("ran")), "the hook did not run: \(outcome.stderr)")
        #expect(!outcome.stderr.contains("--on-refresh"), "\(outcome.stderr)")
        let expected = Set(paths.map { server.url($0) })
        let copied = try String(contentsOfFile: folder.path("copy.txt"), encoding: .utf8)
        #expect(copied.hasSuffix("\n"))
        #expect(Set(copied.split(separator: "\n").map(String.init)) == expected)
        #expect(copied.split(separator: "\n").count == 1000)
        let capped = try String(contentsOfFile: folder.path("capped.txt"), encoding: .utf8)
        #expect(capped.utf8.count <= 64 * 1024 && capped.utf8.count > 60 * 1024, "\(capped.utf8.count) bytes")
        #expect(capped.split(separator: "\n").allSatisfy { expected.contains(String($0)) }, "whole URLs only")
        #expect(try String(contentsOfFile: folder.path("counts.txt"), encoding: .utf8) == "1000 1\n")
        let listFile = try String(contentsOfFile: folder.path("where.txt"), encoding: .utf8).trimmingCharacters(in: .newlines)
        #expect(!listFile.isEmpty && !FileManager.default.fileExists(atPath: (listFile as NSString).deletingLastPathComponent),
                "\(listFile)'s folder is left behind")
        try await server.shutdown()
    }

    @Test("usage errors name the option")
    func usage() async throws {
        let folder = try TemporaryFolder()
        let outcome = try await run(["fetch", "page.html", "--timeout", "0"], in: folder)
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("--timeout"))
        let missing = try await run(["fetch", "nope.html", "--out", "o"], in: folder)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("nope.html"))
    }
}
