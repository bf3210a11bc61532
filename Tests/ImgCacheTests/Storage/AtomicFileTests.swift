import Foundation
import Testing
@testable import ImgCache

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
}
