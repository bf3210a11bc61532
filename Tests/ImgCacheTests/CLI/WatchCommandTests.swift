import Foundation
import ImgCacheTestServer
import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheMarkup

@Suite("imgcache watch, end to end")
struct WatchCommandTests {
    private func named(_ events: [[String: Any]], _ name: String) -> [[String: Any]] {
        events.filter { $0["event"] as? String == name }
    }

    @Test("watch: the page is rewritten at once, again on each save with only the new images fetched, one refresh per burst; Ctrl-C leaves no temporary file")
    func rewritesOnChangeAndStopsCleanly() async throws {
        let server = try await TestImageServer.start()
        server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        server.route("/b.gif", .image(bytes: TestImages.gif(), contentType: "image/gif", delay: .milliseconds(100)))
        server.route("/c.png", .image(bytes: TestImages.png(width: 3, height: 2), contentType: "image/png"))
        server.route("/slow.png", .drip(bytes: TestImages.png(byteCount: 500), interval: .milliseconds(200)))
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<p><img src=a.png></p>")
        let naming = LocalImageNaming()
        func local(_ path: String) -> String { "images/" + naming.localName(for: BrowserURL(server.url(path))!)! }

        let watch = try await RunningCommand([
            "watch", "page.html", "--base-url", server.url("/"), "--out", "out", "--events", "ndjson",
            "--debounce", "0.3", "--interval", "0.05", "--retries", "0", "--timeout", "60",
        ], in: folder.url)

        try await watch.waitForEvents("first refresh") { named($0, "refresh").count == 1 }
        #expect(try String(contentsOfFile: folder.path("out/page.html"), encoding: .utf8) == "<p><img src=\(local("/a.png"))></p>")
        #expect(named(watch.events, "page").first?["rewritten"] as? Int == 1)
        #expect(named(watch.events, "refresh").first?["downloaded"] as? Int == 1)

        // An edit adds two images: the page is rewritten, only they are fetched, one refresh for both.
        try folder.write("page.html", "<p><img src=a.png><img src=b.gif> <img src=c.png></p>")
        try await watch.waitForEvents("second refresh") { named($0, "refresh").count == 2 }
        #expect(try String(contentsOfFile: folder.path("out/page.html"), encoding: .utf8)
                == "<p><img src=\(local("/a.png"))><img src=\(local("/b.gif"))> <img src=\(local("/c.png"))></p>")
        let second = try #require(named(watch.events, "refresh").last)
        #expect(second["downloaded"] as? Int == 2)
        #expect(server.requestCount("/a.png") == 1, "a cached image is not fetched again")
        #expect(named(watch.events, "page").count == 2)
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.url.appendingPathComponent("out/imgcache-manifest.json"))) as? [String: Any]
        let references = (manifest?["pages"] as? [[String: Any]])?.first?["references"] as? [[String: Any]] ?? []
        #expect(references.map { $0["status"] as? String } == ["cached", "downloaded", "downloaded"])

        // A save that references a slow image, then Ctrl-C while it downloads.
        try folder.write("page.html", "<p><img src=a.png><img src=slow.png></p>")
        try await watch.waitForEvents("the slow image's start") { events in
            named(events, "started").contains { ($0["url"] as? String)?.hasSuffix("/slow.png") == true }
        }
        try await Task.sleep(for: .milliseconds(300))  // bytes are arriving
        let stoppedAt = ContinuousClock.now
        watch.interrupt()
        let status = try await watch.waitForExit()
        #expect(ContinuousClock.now - stoppedAt < .seconds(30), "stops without waiting for the slow download (100 s)")
        #expect(status == 0, "\(watch.stderr)")
        let files = folder.allFiles()
        #expect(!files.contains { $0.contains(".tmp") }, "\(files)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("out/" + local("/slow.png"))))
        #expect(try String(contentsOfFile: folder.path("out/page.html"), encoding: .utf8)
                == "<p><img src=\(local("/a.png"))><img src=\(local("/slow.png"))></p>", "live mode: the page was written before the download")
        try await server.shutdown()
    }

    @Test("watch: a file that disappears is waited for; when it comes back it is rewritten again")
    func fileComesBack() async throws {
        let server = try await TestImageServer.start()
        server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        server.route("/b.png", .image(bytes: TestImages.png(width: 2, height: 2), contentType: "image/png"))
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<img src=a.png>")
        let watch = try await RunningCommand([
            "watch", "page.html", "--base-url", server.url("/"), "--out", "out", "--events", "ndjson",
            "--debounce", "0", "--interval", "0.05",
        ], in: folder.url)
        try await watch.waitForEvents("first refresh") { named($0, "refresh").count == 1 }
        try FileManager.default.removeItem(atPath: folder.path("page.html"))
        let deadline = ContinuousClock.now + .seconds(10)
        while !watch.stderr.contains("page.html is gone"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(watch.stderr.contains("page.html is gone"))
        #expect(FileManager.default.fileExists(atPath: folder.path("out/page.html")), "the rewritten page stays")
        // Saved the way many editors save: a new file renamed over the path.
        try folder.write("page.html.new", "<img src=b.png>")
        try FileManager.default.moveItem(atPath: folder.path("page.html.new"), toPath: folder.path("page.html"))
        try await watch.waitForEvents("refresh after the file came back") { named($0, "refresh").count == 2 }
        #expect(server.requestCount("/b.png") == 1)
        watch.interrupt()
        #expect(try await watch.waitForExit() == 0)
        try await server.shutdown()
    }

    @Test("watch refuses URLs, missing files and an output that would overwrite its input")
    func usage() async throws {
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<img src=a.png>")
        let url = try await CommandRunner.runOffPool(["watch", "http://example.com/"], in: folder.url)
        #expect(url.status == 64)
        #expect(url.stderr.contains("imgcache fetch"))
        let missing = try await CommandRunner.runOffPool(["watch", "nope.html"], in: folder.url)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("nope.html"))
        let inPlace = try await CommandRunner.runOffPool(["watch", "page.html", "--out", "."], in: folder.url)
        #expect(inPlace.status == 64)
        #expect(inPlace.stderr.contains("would be overwritten"))
        let fetchInPlace = try await CommandRunner.runOffPool(["fetch", "page.html", "--out", "."], in: folder.url)
        #expect(fetchInPlace.status == 64)
        try folder.write("other.html", "x")
        try FileManager.default.createDirectory(atPath: folder.path("sub"), withIntermediateDirectories: true)
        try folder.write("sub/page.html", "y")
        let clash = try await CommandRunner.runOffPool(["fetch", "page.html", "sub/page.html", "--out", "out"], in: folder.url)
        #expect(clash.status == 64)
        #expect(clash.stderr.contains("would both be written"))
        #expect(try String(contentsOfFile: folder.path("page.html"), encoding: .utf8) == "<img src=a.png>")
    }
}

@Suite("imgcache watch SITE_DIR")
struct WatchSiteTests {
    @Test("watch a site folder: new files are localised or copied, changed ones again, deleted ones leave --out")
    func watchesTheTree() async throws {
        let server = try await TestImageServer.start()
        for name in ["a.png", "b.png", "bg.gif"] {
            server.route("/app/img/\(name)", .image(bytes: name.hasSuffix("gif") ? TestImages.gif() : TestImages.png(), contentType: "image/x"))
        }
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path("site/css"), withIntermediateDirectories: true)
        try folder.write("site/index.html", "<img src=img/a.png>")
        try folder.write("site/css/site.css", ".x{}")
        let naming = LocalImageNaming()
        func local(_ path: String) -> String { naming.localName(for: BrowserURL(server.url(path))!)! }
        func pages(_ events: [[String: Any]]) -> [String] {
            events.filter { $0["event"] as? String == "page" }.compactMap { $0["input"] as? String }
        }
        let watch = try await RunningCommand([
            "watch", "site", "--base-url", server.url("/app/"), "--out", "Web", "--events", "ndjson",
            "--debounce", "0.1", "--interval", "0.05",
        ], in: folder.url)
        try await watch.waitForEvents("the first pages") { pages($0).count == 2 }
        #expect(try String(contentsOfFile: folder.path("Web/index.html"), encoding: .utf8) == "<img src=images/\(local("/app/img/a.png"))>")

        // A new page two folders down, a changed stylesheet and a new script.
        try FileManager.default.createDirectory(atPath: folder.path("site/docs/deep"), withIntermediateDirectories: true)
        try folder.write("site/docs/deep/new.html", "<img src=../../img/b.png>")
        try folder.write("site/css/site.css", ".x{background:url(../img/bg.gif)}")
        try folder.write("site/app.js", "run()")
        try await watch.waitForEvents("the new page and the stylesheet") { events in
            let written = pages(events)
            return written.contains { $0.hasSuffix("new.html") } && written.filter { $0.hasSuffix("site.css") }.count == 2
        }
        try await watch.waitForEvents("the images") { events in
            events.filter { $0["event"] as? String == "finished" }.count == 3
        }
        #expect(try String(contentsOfFile: folder.path("Web/docs/deep/new.html"), encoding: .utf8)
                == "<img src=../../images/\(local("/app/img/b.png"))>")
        #expect(try String(contentsOfFile: folder.path("Web/css/site.css"), encoding: .utf8)
                == ".x{background:url(../images/\(local("/app/img/bg.gif")))}")
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: folder.path("Web/app.js")) {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(FileManager.default.contents(atPath: folder.path("Web/app.js")) == Data("run()".utf8))

        // Deleting files from the site deletes their copies.
        try FileManager.default.removeItem(atPath: folder.path("site/docs/deep/new.html"))
        try FileManager.default.removeItem(atPath: folder.path("site/app.js"))
        for _ in 0..<100 where FileManager.default.fileExists(atPath: folder.path("Web/docs/deep/new.html"))
            || FileManager.default.fileExists(atPath: folder.path("Web/app.js")) {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path("Web/docs/deep/new.html")))
        #expect(!FileManager.default.fileExists(atPath: folder.path("Web/app.js")))
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.url.appendingPathComponent("Web/imgcache-manifest.json"))) as? [String: Any]
        let inputs = (manifest?["pages"] as? [[String: Any]] ?? []).compactMap { $0["input"] as? String }
        #expect(!inputs.contains { $0.hasSuffix("new.html") }, "\(inputs)")
        watch.interrupt()
        #expect(try await watch.waitForExit() == 0, "\(watch.stderr)")
        try await server.shutdown()
    }

    @Test("watch a site folder: a file replaced by a symbolic link to a file outside the site is skipped, once, and what it points to never reaches --out",
          arguments: ["a.png", "index.html"])
    func symbolicLinkOutOfTheSite(replaced: String) async throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.path("site"), withIntermediateDirectories: true)
        try folder.write("site/index.html", "<p>home</p>")
        try folder.write("site/a.png", "an image")
        let marker = "outside-the-site-\(UUID().uuidString)"
        try folder.write("secret.html", "<p>\(marker)</p>")
        let watch = try await RunningCommand([
            "watch", "site", "--base-url", "http://127.0.0.1:9/", "--out", "Web", "--events", "ndjson",
            "--debounce", "0", "--interval", "0.05",
        ], in: folder.url)
        try await watch.waitForEvents("the page") { events in events.contains { $0["event"] as? String == "page" } }
        try await waitForFile(folder.path("Web/a.png"))

        try FileManager.default.removeItem(atPath: folder.path("site/\(replaced)"))
        try FileManager.default.createSymbolicLink(atPath: folder.path("site/\(replaced)"), withDestinationPath: folder.path("secret.html"))
        // A file added after the link: once it is copied, the polls that saw the link have settled
        // too; then ten polls more.
        try folder.write("site/later.txt", "later")
        try await waitForFile(folder.path("Web/later.txt"))
        try await Task.sleep(for: .milliseconds(500))

        let out = folder.path("Web")
        for file in FileManager.default.enumerator(atPath: out)?.allObjects as? [String] ?? [] {
            // Read through any link, as a browser or a web server serving --out would.
            let bytes = FileManager.default.contents(atPath: out + "/" + file) ?? Data()
            #expect(!String(decoding: bytes, as: UTF8.self).contains(marker), "\(file)")
        }
        let skipped = watch.stderr.components(separatedBy: "skipping site/\(replaced)").count - 1
        #expect(skipped == 1, "\(watch.stderr)")
        watch.interrupt()
        #expect(try await watch.waitForExit() == 0, "\(watch.stderr)")
    }

    private func waitForFile(_ path: String) async throws {
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: path) {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(FileManager.default.fileExists(atPath: path), "\(path)")
    }
}
