import Foundation
import Testing
@testable import ImgCache
@testable import ImgCacheSupport
@testable import ImgCacheStore

@Suite("Staged image files")
struct StagedImageFileTests {
    @Test("an image staged unnamed or under a temporary name appears whole at its name, replaces an older file, and leaves nothing else",
          arguments: [true, false])
    func placeAndReplace(allowUnnamed: Bool) throws {
        let folder = try CacheTestFolder()
        let path = folder.path + "/" + String(repeating: "ab", count: 32) + ".png"
        let first = CacheTestData.bytes(5_000, seed: 1)
        let staged = try StagedImageFile.write(first, for: path, durable: false, support: StagedImageFile.Support(portable: !allowUnnamed))
        #expect(!FileManager.default.fileExists(atPath: path), "not visible at its name before it is placed")
        #expect(staged.place(at: path) == 0)
        #expect(folder.read((path as NSString).lastPathComponent) == first)
        let status = try #require(CacheFileSystem.status(ofPath: path))
        #expect(status.fingerprint == staged.status.fingerprint, "the recorded fingerprint is the placed file's")

        let second = CacheTestData.bytes(3_000, seed: 2)
        let replacement = try StagedImageFile.write(second, for: path, durable: true, support: StagedImageFile.Support(portable: !allowUnnamed))
        #expect(replacement.place(at: path) == 0)
        #expect(folder.read((path as NSString).lastPathComponent) == second)

        let discarded = try StagedImageFile.write([1, 2, 3], for: path, durable: false, support: StagedImageFile.Support(portable: !allowUnnamed))
        discarded.discard()
        #expect(folder.allFiles() == [(path as NSString).lastPathComponent], "no temporary file left behind")
    }

    @Test("staging into a folder that does not exist fails with the folder's error", arguments: [true, false])
    func missingFolder(allowUnnamed: Bool) throws {
        let folder = try CacheTestFolder()
        #expect(throws: FileError.self) {
            try StagedImageFile.write([1], for: folder.path + "/missing/x.png", durable: false, support: StagedImageFile.Support(portable: !allowUnnamed))
        }
    }

    #if os(Linux)
    @Test("an unnamed file is linked by its descriptor and through /proc alike; an existing name or a missing folder is reported",
          arguments: [true, false])
    func linkWays(byDescriptor: Bool) throws {
        let folder = try CacheTestFolder()
        let bytes = CacheTestData.bytes(4_000, seed: 3)
        let descriptor = open(folder.path, 0o20000000 | O_DIRECTORY | O_WRONLY | O_CLOEXEC, 0o644)
        try #require(descriptor >= 0, "O_TMPFILE on this file system")
        defer { close(descriptor) }
        #expect(bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == bytes.count)
        let path = folder.path + "/linked.png"
        #expect(StagedImageFile.link(descriptor, to: path, support: StagedImageFile.Support(), byDescriptor: byDescriptor) == 0)
        #expect(folder.read("linked.png") == bytes)
        #expect(StagedImageFile.link(descriptor, to: path, support: StagedImageFile.Support(), byDescriptor: byDescriptor) == EEXIST)
        #expect(StagedImageFile.link(descriptor, to: folder.path + "/missing/x.png", support: StagedImageFile.Support(), byDescriptor: byDescriptor) == ENOENT)
        #expect(StagedImageFile.link(descriptor, to: folder.path + "/second.png", support: StagedImageFile.Support(), byDescriptor: byDescriptor) == 0,
                "a missing folder does not turn either way off")
        #expect(folder.allFiles().sorted() == ["linked.png", "second.png"])
    }
    #endif
}
