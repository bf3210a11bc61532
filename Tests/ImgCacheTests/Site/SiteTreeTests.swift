import Foundation
import Testing
@testable import ImgCache
@testable import ImgCacheSupport
@testable import ImgCacheURLs
@testable import ImgCacheMarkup

@Suite("Site folders")
struct SiteTreeTests {
    private func makeSite() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        for path in ["index.html", "docs/a b.htm", "docs/x#1.xhtml", "css/site.CSS", "img/logo.png", ".git/config", "out/old.html"] {
            let url = folder.url.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("x".utf8).write(to: url)
        }
        return folder
    }

    @Test("files are listed by path with their kind; hidden files and excluded folders are not")
    func listing() throws {
        let folder = try makeSite()
        let site = try SiteTree(root: folder.url.path, baseURL: BrowserURL("https://example.com/app"), excluding: [folder.path("out")])
        #expect(site.files.map(\.relativePath) == ["css/site.CSS", "docs/a b.htm", "docs/x#1.xhtml", "img/logo.png", "index.html"])
        #expect(site.files.map(\.kind) == [.stylesheet, .page, .page, .asset, .page])
        #expect(throws: FileError.self) { try SiteTree(root: folder.path("index.html"), baseURL: nil) }
    }

    @Test("a folder reached through a symbolic link (as /tmp is /private/tmp on a Mac) lists every file, and excludes by either spelling")
    func folderThroughSymlink() throws {
        let folder = try makeSite()
        let links = try TemporaryFolder()
        let linked = links.path("site")
        try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: folder.url.path)
        let throughLink = try SiteTree(root: linked, baseURL: BrowserURL("https://example.com/app"), excluding: [folder.path("out")])
        #expect(throughLink.files.map(\.relativePath) == ["css/site.CSS", "docs/a b.htm", "docs/x#1.xhtml", "img/logo.png", "index.html"])
        let excludedByLink = try SiteTree(root: folder.url.path, baseURL: nil, excluding: [linked + "/docs"])
        #expect(excludedByLink.files.map(\.relativePath) == ["css/site.CSS", "img/logo.png", "index.html", "out/old.html"])
    }

    @Test("links inside the folder are not followed: neither a link to a page nor a link to a folder is listed")
    func linksInside() throws {
        let folder = try makeSite()
        try FileManager.default.createSymbolicLink(atPath: folder.path("linked.html"), withDestinationPath: folder.path("index.html"))
        try FileManager.default.createSymbolicLink(atPath: folder.path("linked-docs"), withDestinationPath: folder.path("docs"))
        try FileManager.default.createSymbolicLink(atPath: folder.path("dangling.html"), withDestinationPath: folder.path("gone.html"))
        let site = try SiteTree(root: folder.url.path, baseURL: nil, excluding: [folder.path("out")])
        #expect(site.files.map(\.relativePath) == ["css/site.CSS", "docs/a b.htm", "docs/x#1.xhtml", "img/logo.png", "index.html"])
    }

    @Test("a URL maps back to its file only when it lies under the base URL and names a file, escapes decoded")
    func urlsMappedBack() throws {
        let folder = try makeSite()
        for path in ["docs/caf\u{e9}.html", "docs/100%.css", "docs/q?.png"] {
            try Data("x".utf8).write(to: folder.url.appendingPathComponent(path))
        }
        let site = try SiteTree(root: folder.url.path, baseURL: BrowserURL("https://example.com/app/"))
        #expect(site.relativePath(servingURL: "https://example.com/app/docs/caf%C3%A9.html") == "docs/caf\u{e9}.html")
        #expect(site.relativePath(servingURL: "https://example.com/app/docs/caf%c3%a9.html#x") == "docs/caf\u{e9}.html")
        #expect(site.relativePath(servingURL: "https://example.com/app/docs/100%25.css") == "docs/100%.css")
        #expect(site.relativePath(servingURL: "https://example.com/app/docs/q%3F.png?q") == "docs/q?.png")
        #expect(site.relativePath(servingURL: "https://example.com/app/docs%2Fa%20b.htm") == "docs/a b.htm")
        #expect(site.relativePath(servingURL: "https://example.com/app/index.html") == "index.html")
        for outside in ["https://example.com/app/", "https://example.com/app", "https://example.com/app/docs/",
                        "https://example.com/app//index.html", "https://example.com/app/./index.html",
                        "https://example.com/app/docs/../index.html", "https://example.com/app/docs/%2E%2E/index.html",
                        "https://example.com/app/%2e/index.html", "https://example.com/app/index.html/",
                        "https://example.com/app/caf%C3%A9.html", "https://example.com/app/docs/caf%E9.html",
                        "http://example.com/app/index.html", "https://example.com/apps/index.html", ""] {
            #expect(site.relativePath(servingURL: outside) == nil, "\(outside)")
        }
        let noBase = try SiteTree(root: folder.url.path, baseURL: nil)
        #expect(noBase.relativePath(servingURL: "https://example.com/app/index.html") == nil)
    }

    @Test("a file's URL is the base URL (taken as a folder) joined with its path; URLs map back to the files")
    func urls() throws {
        let folder = try makeSite()
        let site = try SiteTree(root: folder.url.path, baseURL: BrowserURL("https://example.com/app"))
        let byPath = Dictionary(uniqueKeysWithValues: site.files.map { ($0.relativePath, $0) })
        #expect(site.url(of: byPath["docs/a b.htm"]!)?.serialized == "https://example.com/app/docs/a%20b.htm")
        #expect(site.url(of: byPath["docs/x#1.xhtml"]!)?.serialized == "https://example.com/app/docs/x%231.xhtml")
        #expect(site.relativePath(servingURL: "https://example.com/app/img/logo.png") == "img/logo.png")
        #expect(site.relativePath(servingURL: "https://example.com/app/img/logo.png?v=3#top") == "img/logo.png")
        #expect(site.relativePath(servingURL: "https://example.com/app/docs/a%20b.htm") == "docs/a b.htm")
        #expect(site.relativePath(servingURL: "https://example.com/app/img/other.png") == nil)
        #expect(site.relativePath(servingURL: "https://example.com/img/logo.png") == nil)
        #expect(site.relativePath(servingURL: "https://cdn.example.com/app/img/logo.png") == nil)
        #expect(site.relativePath(servingURL: "https://example.com/app/.git/config") == nil)
    }

    @Test("a file's kind comes from its extension as NSString reads it, in any case", arguments: [
        "index.html", "a/INDEX.HTM", "a.b/page.xhtml", "site.Css", "docs.html/readme", ".css", "a/.html",
        "page.html/", "archive.tar.css", "noext", "a.", "..", "caf\u{e9}.html", "x.htmlx", "x.cs", "st\u{fc}ck.CSS",
    ])
    func kindByExtension(path: String) {
        let expected: SiteFileKind = switch (path as NSString).pathExtension.lowercased() {
        case "html", "htm", "xhtml": .page
        case "css": .stylesheet
        default: .asset
        }
        #expect(SiteTree.kind(ofPath: path) == expected)
    }
}
