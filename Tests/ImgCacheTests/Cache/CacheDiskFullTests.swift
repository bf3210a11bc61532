import Foundation
import ImgCacheTestServer
import Testing
@testable import ImgCache
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCacheSupport
@testable import ImgCacheURLs
@testable import ImgCacheMarkup
@testable import ImgCacheStore

/// A tmpfs of its own, mounted for one test: the only way to make a disk fill up for real. Needs
/// root with CAP_SYS_ADMIN (a container may refuse), so the test that uses it is skipped elsewhere.
final class SmallTmpfs: Sendable {
    let path: String

    /// Whether this process may mount a tmpfs, found by mounting and unmounting one.
    static let canMount: Bool = {
        #if os(Linux)
        guard geteuid() == 0, let probe = try? TemporaryFolder() else { return false }
        guard mount("tmpfs", probe.url.path, "tmpfs", 0, "size=16k") == 0 else { return false }
        umount2(probe.url.path, Int32(MNT_DETACH))
        return true
        #else
        return false
        #endif
    }()

    /// Mounts a tmpfs of `size` (as `mount -o size=` takes it, e.g. `300k`) on a new folder at `path`.
    init(at path: String, size: String) throws {
        self.path = path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        #if os(Linux)
        guard mount("tmpfs", path, "tmpfs", 0, "size=\(size)") == 0 else {
            throw FileError(path: path, errno: errno)
        }
        #endif
    }

    func unmount() {
        #if os(Linux)
        umount2(path, Int32(MNT_DETACH))
        #endif
    }
}

@Suite("A cache folder whose disk fills up mid-run")
struct CacheDiskFullTests {
    @Test(
        "images stored before the disk filled are intact and local; the rest are reported failed with 'No space left on device' and keep their remote URLs; exit 2; nothing partial left",
        .enabled(if: SmallTmpfs.canMount, "mounting a tmpfs needs root with CAP_SYS_ADMIN; this process may not, so a full disk cannot be made here")
    )
    func diskFillsUp() async throws {
        let server = try await TestImageServer.start()
        let count = 200
        // Distinct lengths make distinct bytes, so an image stored under another's name would show.
        let images = (0..<count).map { TestImages.png(byteCount: 4_000 + 13 * $0) }
        for (index, bytes) in images.enumerated() {
            server.route("/img/\(index).png", .image(bytes: bytes, contentType: "image/png"))
        }
        let folder = try TemporaryFolder()
        try folder.write("page.html", (0..<count).map { "<img src=img/\($0).png>\n" }.joined())
        // 300 KB holds a few dozen of these 4-7 KB images (tmpfs gives each file whole pages) and
        // the index: the disk fills up a few dozen images into the run.
        let disk = try SmallTmpfs(at: folder.path("cache"), size: "300k")
        defer { disk.unmount() }

        let outcome = try await CommandRunner.runOffPool(
            ["fetch", "page.html", "--base-url", server.url("/"), "--out", "out", "--cache-dir", "cache", "--retries", "0"],
            in: folder.url)

        #expect(outcome.status == 2, "\(outcome.stderr)")
        let lines = try String(contentsOfFile: folder.path("out/page.html"), encoding: .utf8).split(separator: "\n")
        try #require(lines.count == count)
        let failures = outcome.stderr.split(separator: "\n").filter { $0.hasPrefix("imgcache: failed: ") }
        let naming = LocalImageNaming()
        var stored = Set<String>()
        for (index, line) in lines.enumerated() {
            let url = server.url("/img/\(index).png")
            let name = try #require(naming.localName(for: BrowserURL(url)!))
            if line == "<img src=../cache/\(name)>" {
                let bytes = FileManager.default.contents(atPath: folder.path("cache/\(name)")).map { [UInt8]($0) }
                #expect(bytes == images[index], "image \(index) is local but not intact")
                stored.insert(name)
            } else {
                #expect(line == "<img src=img/\(index).png>", "a failed image keeps its URL")
                #expect(failures.contains { $0.contains(url) && $0.contains("No space left on device") },
                        "image \(index) is not reported failed for want of space")
            }
        }
        #expect(!stored.isEmpty && stored.count < count, "the disk filled up mid-run: \(stored.count) of \(count) stored")
        #expect(failures.count == count - stored.count)
        // What is on the full disk: the stored images, the index and the lock. No partial image,
        // no temporary file.
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: folder.path("cache"))
        #expect(Set(onDisk) == stored.union([".imgcache.index", ".imgcache.lock"]))
        let store = try ImageCacheStore(directory: folder.path("cache"))
        #expect(store.verify().isEmpty, "every entry the index records matches its image")
        #expect(store.stats().entryCount == stored.count)
        try await server.shutdown()
    }
}

@Suite("An index append that runs out of room")
struct IndexAppendOutOfRoomTests {
    @Test(
        "a batch whose records fill the disk part way is not stored at all: its images are removed and the index records only what is stored",
        .enabled(if: SmallTmpfs.canMount, "mounting a tmpfs needs root with CAP_SYS_ADMIN; this process may not, so a full disk cannot be made here")
    )
    func recordsCutBack() throws {
        let folder = try TemporaryFolder()
        let disk = try SmallTmpfs(at: folder.path("cache"), size: "512k")
        defer { disk.unmount() }
        let store = try ImageCacheStore(directory: folder.path("cache"))
        // Long URLs make long records: the batch's records need more room than its images leave.
        func image(_ number: Int) -> ImageToStore {
            ImageToStore(bytes: TestImages.png(byteCount: 300 + number),
                         url: BrowserURL("https://a.example/\(String(repeating: "long-path/", count: 60))\(number).png")!,
                         contentType: "image/png")
        }
        _ = store.store([image(0)])
        // Fill the disk, then give back room for the batch's images (a page each) and one page more.
        let count = 20
        let fillerPath = folder.path("cache/filler")
        let filler = open(fillerPath, O_WRONLY | O_CREAT, 0o600)
        try #require(filler >= 0)
        let page = [UInt8](repeating: 0, count: 4096)
        var filled = 0
        while page.withUnsafeBytes({ write(filler, $0.baseAddress!, $0.count) }) == 4096 { filled += 4096 }
        try #require(ftruncate(filler, off_t(filled - (count + 1) * 4096)) == 0)
        close(filler)

        let results = store.store((1...count).map(image))
        let failed = results.filter { if case .failure = $0 { true } else { false } }.count
        try #require(failed > 0, "the records found room after all: the disk did not fill up where this test needs it to")
        #expect(store.verify().isEmpty, "every record the index holds names an image that is stored, with its bytes")
        #expect(store.stats().entryCount == 1 + count - failed)
        unlink(fillerPath)
    }
}
