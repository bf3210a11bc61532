import Foundation
@testable import ImgCache
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
@testable import ImgCacheURLs

/// A fresh cache folder under the system's temporary folder, removed when the test is done.
final class CacheTestFolder: Sendable {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("imgcache-store-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Every file under the folder, hidden ones included, as paths relative to it.
    func allFiles() -> [String] {
        (FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? [])
            .filter { !isFolder($0) }
            .sorted()
    }

    /// The files a user would call cache contents: everything but the lock, the index and its
    /// lookup table.
    func entryFiles() -> [String] {
        allFiles().filter { $0 != ".imgcache.lock" && $0 != ".imgcache.index" && $0 != ".imgcache.lookup" }
    }

    func isFolder(_ relative: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path + "/" + relative, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    func read(_ relative: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path + "/" + relative).map { [UInt8]($0) }
    }

    func exists(_ relative: String) -> Bool {
        FileManager.default.fileExists(atPath: path + "/" + relative)
    }

    /// Sets a file's modification time (to age temporary files, or to forge a fingerprint).
    func setModificationTime(_ relative: String, to date: Date) throws {
        try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: path + "/" + relative)
    }

    /// Sets a file's modification time to the nanosecond, which `FileManager` cannot.
    func setModificationTime(_ relative: String, nanoseconds: Int64) -> Bool {
        let time = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var times = [time, time]  // access and modification time
        return utimensat(AT_FDCWD, path + "/" + relative, &times, 0) == 0
    }
}

/// Test data that differs per URL, so a mix-up between entries cannot go unnoticed.
enum CacheTestData {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    static func url(_ name: String) -> BrowserURL {
        BrowserURL("https://images.example.com/photos/\(name).png")!
    }

    static func bytes(_ count: Int, seed: Int) -> [UInt8] {
        var state = UInt64(truncatingIfNeeded: seed) &* 6364136223846793005 &+ 1442695040888963407
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }

    /// Runs `body` on `count` real threads at once (not the cooperative pool, since the store
    /// blocks on file I/O) and waits for all of them.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            let thread = Thread {
                body(index)
                group.leave()
            }
            thread.start()
        }
        group.wait()
    }
}

/// Shell commands run as separate processes, to exercise the cache against another process.
enum CacheTestProcess {
    static func start(_ script: String, in folder: String) throws -> BackgroundProcess {
        try BackgroundProcess("/bin/sh", ["-c", script], in: folder)
    }

    /// Waits up to `timeout` seconds for a file to appear.
    static func waitFor(_ path: String, timeout: TimeInterval = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if FileManager.default.fileExists(atPath: path) { return true }
            usleep(5_000)
        }
        return false
    }
}
