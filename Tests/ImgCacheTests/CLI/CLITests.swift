import Foundation
import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheMarkup

@Suite("imgcache rewrite / list")
struct CLITests {
    @Test("rewrite writes the page into --out with paths into --cache-dir, relative to the page")
    func rewriteToFolder() async throws {
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<p><img src=\"a.png\" alt=x></p>")
        let outcome = try await CommandRunner.runOffPool(["rewrite", "page.html", "--base-url", "https://example.com/", "--out", "Web", "--cache-dir", "Cache/images"], in: folder.url)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let written = try String(contentsOfFile: folder.path("Web/page.html"), encoding: .utf8)
        #expect(written == "<p><img src=\"\(localPath("https://example.com/a.png", folder: "../Cache/images"))\" alt=x></p>")
    }

    @Test("--output - prints the page; --url-prefix replaces the folder")
    func rewriteToStdout() async throws {
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<img src='/a.gif'>")
        let outcome = try await CommandRunner.runOffPool(["rewrite", "page.html", "--base-url", "https://example.com/x/", "--output", "-", "--url-prefix", "imgcache://"], in: folder.url)
        #expect(outcome.status == 0)
        #expect(outcome.stdout.text == "<img src='imgcache://\(LocalImageNaming().localName(for: BrowserURL("https://example.com/a.gif")!)!)'>")
    }

    @Test("a command that downloads, ended at once by its help or a usage error, exits as it should while libcurl loads", arguments: [
        (["fetch", "--help"], Int32(0)), (["fetch", "--bogus"], Int32(64)), (["watch"], Int32(64)), (["fetch"], Int32(64)),
    ])
    func earlyExitWhileLibcurlLoads(arguments: [String], status: Int32) async throws {
        // libcurl loads on a thread of its own from the start; an exit in the middle of its
        // libraries' initialisers crashed one run in four.
        for _ in 0..<25 {
            let outcome = try await CommandRunner.runOffPool(arguments)
            #expect(outcome.status == status, "\(arguments): \(outcome.stderr)")
            if outcome.status != status { break }
        }
    }

    @Test("list into a reader that stops early (| head) ends quietly: no crash, no error text")
    func listIntoClosedPipe() async throws {
        let folder = try TemporaryFolder()
        try folder.write("page.html", String(repeating: "<img src=a.png><img src='b c.gif'>", count: 20_000))
        // bash reports the status of each side of the pipe; head reads one line and goes away.
        let script = "\"$0\" list page.html --base-url https://example.com/ --json | head -n 1 > /dev/null; echo \"${PIPESTATUS[0]}\""
        let outcome = try await CommandRunner.runOffPool(["-c", script, CommandRunner.executable.path], in: folder.url,
                                                         executable: URL(fileURLWithPath: "/bin/bash"))
        let status = outcome.stdout.text.trimmingCharacters(in: .whitespacesAndNewlines)
        // 0 (everything fit in the pipe before head left), 1 (a write failed with EPIPE and said
        // so), or 141 (SIGPIPE, as for any Unix tool): never a crash's 132-139.
        #expect(["0", "1", "141"].contains(status), "status \(status): \(outcome.stderr)")
        #expect(!outcome.stderr.contains("Fatal error") && !outcome.stderr.contains("exception"), "\(outcome.stderr)")
    }

    @Test("without --base-url relative URLs are kept and a warning names the page")
    func noBaseURL() async throws {
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<img src=a.png>")
        let outcome = try await CommandRunner.runOffPool(["rewrite", "page.html", "--output", "-"], in: folder.url)
        #expect(outcome.status == 0)
        #expect(outcome.stdout.text == "<img src=a.png>")
        #expect(outcome.stderr.contains("page.html") && outcome.stderr.contains("relative"))
    }

    @Test("a missing page is an error that names it; other pages are still written")
    func missingPage() async throws {
        let folder = try TemporaryFolder()
        try folder.write("good.html", "<img src=https://e.example/a.png>")
        let outcome = try await CommandRunner.runOffPool(["rewrite", "missing.html", "good.html", "--out", "out"], in: folder.url)
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("missing.html") && outcome.stderr.contains("no such file"))
        #expect(FileManager.default.fileExists(atPath: folder.path("out/good.html")))
    }

    @Test("an unwritable output fails with a non-zero exit and leaves no partial or temporary file")
    func unwritableOutput() async throws {
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<img src=https://e.example/a.png>")
        try folder.write("blocker", "a file where a folder should be")
        let outcome = try await CommandRunner.runOffPool(["rewrite", "page.html", "--out", "blocker/sub"], in: folder.url)
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("blocker"))
        #expect(folder.allFiles() == ["blocker", "page.html"])
    }

    @Test("usage errors exit with 64 and say what is wrong")
    func usageErrors() async throws {
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<img src=a.png>")
        let badURL = try await CommandRunner.runOffPool(["rewrite", "page.html", "--out", "o", "--base-url", "not a url"], in: folder.url)
        #expect(badURL.status == 64)
        #expect(badURL.stderr.contains("--base-url"))
        let noDestination = try await CommandRunner.runOffPool(["rewrite", "page.html"], in: folder.url)
        #expect(noDestination.status == 64)
        #expect(noDestination.stderr.contains("--out"))
    }

    @Test("list --device names the devices that show each candidate of a picture, in the text and in --json; a device it cannot read is a usage error")
    func listDevices() async throws {
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<picture><source type=image/avif srcset=a.avif><img src=a.jpg srcset=\"a-2x.jpg 2x\"></picture><img src=b.png>")
        let arguments = ["list", "page.html", "--base-url", "https://example.com/", "--device", "iphone", "--device", "1280x800@1"]
        let text = try await CommandRunner.runOffPool(arguments, in: folder.url)
        #expect(text.status == 0, "\(text.stderr)")
        let lastColumns = String(decoding: text.stdout, as: UTF8.self).split(separator: "\n").map { $0.split(separator: "\t").last.map(String.init) }
        #expect(lastColumns == ["iphone,1280x800@1", "none", "none", "-"])
        let json = try await CommandRunner.runOffPool(arguments + ["--json"], in: folder.url)
        let objects = try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [[String: Any]] ?? []
        #expect(objects.map { $0["shownOn"] as? [String] } == [["iphone", "1280x800@1"], [], [], nil])
        let bad = try await CommandRunner.runOffPool(["list", "page.html", "--device", "390x844@0"], in: folder.url)
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--device '390x844@0' is neither WIDTHxHEIGHT@RATIO"))
        let plain = try await CommandRunner.runOffPool(["list", "page.html", "--base-url", "https://example.com/"], in: folder.url)
        #expect(String(decoding: plain.stdout, as: UTF8.self).split(separator: "\n").allSatisfy { $0.split(separator: "\t").count == 5 },
                "without --device, the five columns as before")
    }

    @Test("list --json prints kind, original, url, localName and rewritten for every reference")
    func listJSON() async throws {
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<img src=a.png srcset=\"b.png 2x\"><div style=\"background:url(c.svg)\"></div>")
        let outcome = try await CommandRunner.runOffPool(["list", "page.html", "--base-url", "https://example.com/", "--json"], in: folder.url)
        #expect(outcome.status == 0)
        let objects = try JSONSerialization.jsonObject(with: Data(outcome.stdout)) as? [[String: Any]] ?? []
        #expect(objects.map { $0["kind"] as? String } == ["img-src", "img-srcset", "style-attribute"])
        #expect(objects.map { $0["original"] as? String } == ["a.png", "b.png", "c.svg"])
        #expect(objects.map { $0["url"] as? String } == ["https://example.com/a.png", "https://example.com/b.png", "https://example.com/c.svg"])
        #expect(objects.map { $0["rewritten"] as? Bool } == [true, true, false])
        #expect(objects[0]["localName"] as? String == LocalImageNaming().localName(for: BrowserURL("https://example.com/a.png")!))
    }

    @Test("list prints one line per reference")
    func listLines() async throws {
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<img src=a.png><img src=b.png>")
        let outcome = try await CommandRunner.runOffPool(["list", "page.html", "--base-url", "https://example.com/"], in: folder.url)
        #expect(outcome.status == 0)
        let lines = outcome.stdout.text.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("img-src\trewrite\ta.png\thttps://example.com/a.png\t"))
    }

    @Test("--extensions and --lazy-attributes take items with spaces around them, a no-break space too, in any case")
    func spacedOptionLists() async throws {
        let folder = try TemporaryFolder()
        try folder.write("page.html", "<img src=a.webp><img src=b.png><img data-big=c.webp><img data-x=d.webp>")
        let outcome = try await CommandRunner.runOffPool(
            ["list", "page.html", "--base-url", "https://example.com/", "--json", "--extensions-only",
             "--extensions", " WEBP ,\u{A0}jpg\t", "--lazy-attributes", "data-big\u{A0}, data-src "], in: folder.url)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let objects = try JSONSerialization.jsonObject(with: Data(outcome.stdout)) as? [[String: Any]] ?? []
        // b.png is not in the list; d.webp sits in an attribute that is not lazy.
        #expect(objects.map { $0["original"] as? String } == ["a.webp", "b.png", "c.webp"])
        #expect(objects.map { $0["rewritten"] as? Bool } == [true, false, true])
    }
}
