import Foundation
import Testing
@testable import ImgCache
@testable import ImgCacheSupport

@Suite("Whole-file writes")
struct AtomicFileTests {
    private func makeFolder() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("imgcache-atomic-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("a write into folders that do not exist yet creates them; a second write replaces the file")
    func createsMissingFolders() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/a/b/page.html"
        try AtomicFile.write(Array("first".utf8), to: path)
        try AtomicFile.write(Array("second".utf8), to: path)
        #expect(try AtomicFile.read(path) == Array("second".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/a/b") == ["page.html"])
    }

    @Test("a folder that cannot be made is named in the error, and nothing is written")
    func folderBlockedByAFile() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try AtomicFile.write(Array("x".utf8), to: folder + "/file")
        #expect {
            try AtomicFile.write(Array("page".utf8), to: folder + "/file/sub/page.html")
        } throws: { error in
            (error as? FileError)?.path == folder + "/file/sub" && (error as? FileError)?.reason.hasPrefix("cannot create folder") == true
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["file"])
    }

    @Test("a file whose size is not known ahead (a pipe) is read whole, past many reads")
    func readsWhatHasNoSize() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let fifo = folder + "/pipe"
        #expect(mkfifo(fifo, 0o600) == 0)
        let content = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let writer = Thread {
            guard let handle = FileHandle(forWritingAtPath: fifo) else { return }
            handle.write(Data(content))
            try? handle.close()
        }
        writer.start()
        #expect(try AtomicFile.read(fifo) == content)
    }

    @Test("a site's file is read only while it is a regular file: a symbolic link (even to a regular file) and a pipe are refused at once")
    func regularFilesOnly() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try AtomicFile.write(Array("page".utf8), to: folder + "/page.html")
        #expect(try AtomicFile.readRegularFile(folder + "/page.html") == Array("page".utf8))
        try FileManager.default.createSymbolicLink(atPath: folder + "/link.html", withDestinationPath: folder + "/page.html")
        #expect {
            try AtomicFile.readRegularFile(folder + "/link.html")
        } throws: { error in
            (error as? FileError)?.description == folder + "/link.html: a symbolic link, not a regular file"
        }
        #expect(try AtomicFile.read(folder + "/link.html") == Array("page".utf8), "a page named on its own is read through links")
        // No writer ever comes: a read that waited for one would hang here.
        #expect(mkfifo(folder + "/pipe", 0o600) == 0)
        #expect {
            try AtomicFile.readRegularFile(folder + "/pipe")
        } throws: { error in
            (error as? FileError)?.description == folder + "/pipe: not a regular file"
        }
    }

    @Test("a copy of a symbolic link or a folder is refused and places nothing; a regular file is copied")
    func copiesOnlyRegularFiles() throws {
        let folder = try makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try AtomicFile.write(Array("secret".utf8), to: folder + "/secret.txt")
        try AtomicFile.write(Array("image".utf8), to: folder + "/site/b.png")
        try FileManager.default.createSymbolicLink(atPath: folder + "/site/a.png", withDestinationPath: folder + "/secret.txt")
        try FileManager.default.createDirectory(atPath: folder + "/site/dir.png", withIntermediateDirectories: true)
        #expect {
            try AtomicFile.place(copyOf: folder + "/site/a.png", at: folder + "/out/a.png")
        } throws: { error in
            (error as? FileError)?.description == folder + "/site/a.png: a symbolic link, not a regular file"
        }
        #expect {
            try AtomicFile.place(copyOf: folder + "/site/dir.png", at: folder + "/out/dir.png")
        } throws: { error in
            (error as? FileError)?.description == folder + "/site/dir.png: a folder, not a regular file"
        }
        try AtomicFile.place(copyOf: folder + "/site/b.png", at: folder + "/out/b.png")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/out") == ["b.png"])
        #expect(try AtomicFile.read(folder + "/out/b.png") == Array("image".utf8))
    }
}
