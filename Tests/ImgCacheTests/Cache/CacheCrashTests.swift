import Foundation
import Testing
@testable import ImgCache
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCacheStore

/// The cache folder under what processes do to it: killed with SIGKILL in the middle of writing,
/// and shared by four writers at once. Each runs twice: with the unnamed files Linux writes, and
/// with the named temporary files renamed into place that Darwin (and any file system without
/// `O_TMPFILE`) writes, forced with `IMGCACHE_PORTABLE_FILES=1`, so that the path Darwin takes
/// has been run here too.
@Suite("Cache folder across crashes and processes", .enabled(if: runsAlone, "runs in a step of its own: IMGCACHE_RUN_ALONE=1 (see .ci/run)"))
struct CacheCrashTests {
    static let folderVariable = "IMGCACHE_CRASH_TEST_FOLDER"
    static let roleVariable = "IMGCACHE_CRASH_TEST_ROLE"
    static let policy = CachePolicy(maxTotalBytes: 300_000)

    static func bytes(for name: String) -> [UInt8] {
        CacheTestData.bytes(1_000 + name.hashValueStable & 0x3FF, seed: name.hashValueStable)
    }

    /// The child processes' half: runs only in a child this suite starts (the test binary again,
    /// filtered to this test), and is skipped otherwise.
    @Test("child process of the crash and sharing tests",
          .enabled(if: ProcessInfo.processInfo.environment[folderVariable] != nil))
    func child() throws {
        let environment = ProcessInfo.processInfo.environment
        let folder = try #require(environment[Self.folderVariable])
        let role = try #require(environment[Self.roleVariable])
        let store = try ImageCacheStore(directory: folder, policy: Self.policy)
        if role == "loop" {
            // Stores until killed: the parent kills it while it writes (60 s at most, in case it is not).
            let started = Date()
            var index = 0
            while Date().timeIntervalSince(started) < 60 {
                let name = "loop-\(index % 400)"
                try store.storeEntry(Self.bytes(for: name), for: CacheTestData.url(name), contentType: "image/png",
                                     etag: nil, lastModified: nil)
                index += 1
                if index == 50 { try Data("\(getpid())".utf8).write(to: URL(fileURLWithPath: folder + "/../pid-ready")) }
            }
            return
        }
        try Data().write(to: URL(fileURLWithPath: folder + "/../\(role)-ready"))
        try #require(CacheTestProcess.waitFor(folder + "/../go", timeout: 60))
        for index in 0..<150 {
            let name = "\(role)-\(index)"
            try store.storeEntry(Self.bytes(for: name), for: CacheTestData.url(name), contentType: "image/png",
                                 etag: nil, lastModified: nil)
            let peek = "writer-\(Int.random(in: 0..<4))-\(Int.random(in: 0..<150))"
            if let found = store.contents(for: CacheTestData.url(peek)) {
                #expect(found.bytes == Self.bytes(for: peek), "\(peek) read back wrong")
            }
        }
    }

    #if os(Linux)
    static func startChild(role: String, cache: String, portable: Bool) throws -> BackgroundProcess {
        let executable = CommandLine.arguments[0]
        guard executable.hasSuffix(".xctest"), FileManager.default.isExecutableFile(atPath: executable) else {
            throw CacheTestFailure("cannot find the test binary to start a child process (\(executable))")
        }
        var environment = [folderVariable: cache, roleVariable: role]
        if portable { environment["IMGCACHE_PORTABLE_FILES"] = "1" }
        return try BackgroundProcess(executable, ["--testing-library", "swift-testing", "--filter", "CacheCrashTests/child"],
                                     environment: environment)
    }

    @Test("a process killed with SIGKILL while it writes leaves every entry whole; pruning leaves no debris",
          arguments: [false, true])
    func killedWhileWriting(portable: Bool) async throws {
        try await offPool {
            let folder = try CacheTestFolder()
            let cache = folder.path + "/cache"
            let child = try Self.startChild(role: "loop", cache: cache, portable: portable)
            try #require(CacheTestProcess.waitFor(folder.path + "/pid-ready", timeout: 60), "the child did not start writing")
            usleep(150_000)
            let pid = try #require(Int32(String(decoding: try Data(contentsOf: URL(fileURLWithPath: folder.path + "/pid-ready")), as: UTF8.self)))
            #expect(kill(pid, SIGKILL) == 0)
            child.waitUntilExit()
            #expect(child.terminationStatus != 0, "killed, not finished: \(child.output)")

            let store = try ImageCacheStore(directory: cache, policy: Self.policy)
            // Killed between placing an image and recording it, a file can be left with no record
            // (never served; `prune` deletes it); a record is never left with the wrong bytes.
            let recorded = store.recordedEntries()
            let reported = store.verify()
            #expect(reported.allSatisfy { recorded[$0] == nil }, "damaged entries: \(reported.filter { recorded[$0] != nil })")
            var intact = 0
            for index in 0..<400 {
                let name = "loop-\(index)"
                guard let found = store.contents(for: CacheTestData.url(name)) else { continue }
                #expect(found.bytes == Self.bytes(for: name), "\(name) read back wrong")
                intact += 1
            }
            #expect(intact > 0)
            // An image is recorded, then older ones are evicted to make room for it: killed between
            // the two, the folder is over the cap by that one image (at most 2,023 bytes here) until
            // the next write or prune evicts.
            #expect(store.stats().totalBytes <= Self.policy.maxTotalBytes! + 2_023)
            // Temporary files count as abandoned once an hour old: prune as that hour later.
            _ = try store.prune(now: Date().addingTimeInterval(2 * 3_600))
            #expect(store.stats().totalBytes <= Self.policy.maxTotalBytes!, "pruned, the folder is within its cap")
            #expect(store.verify().isEmpty, "pruned, nothing is left unrecorded")
            let files = try FileManager.default.contentsOfDirectory(atPath: cache)
            #expect(!files.contains { $0.contains(".tmp-") }, "no temporary file is left: \(files.filter { $0.contains(".tmp-") })")
            // And the folder takes new writes.
            try store.storeEntry(Self.bytes(for: "after"), for: CacheTestData.url("after"), contentType: "image/png",
                                 etag: nil, lastModified: nil)
            #expect(store.contents(for: CacheTestData.url("after"))?.bytes == Self.bytes(for: "after"))
        }
    }

    @Test("four processes storing into one folder at once keep every entry whole and the cap exact", arguments: [false, true])
    func fourProcesses(portable: Bool) async throws {
        try await offPool {
            let folder = try CacheTestFolder()
            let cache = folder.path + "/cache"
            let children = try (0..<4).map { try Self.startChild(role: "writer-\($0)", cache: cache, portable: portable) }
            for index in 0..<4 {
                try #require(CacheTestProcess.waitFor(folder.path + "/writer-\(index)-ready", timeout: 60), "child \(index) did not start")
            }
            try Data().write(to: URL(fileURLWithPath: folder.path + "/go"))
            for child in children {
                child.waitUntilExit()
                #expect(child.terminationStatus == 0, "\(child.output)")
                #expect(child.output.contains("passed"), "the child really ran: \(child.output)")
            }
            let store = try ImageCacheStore(directory: cache, policy: Self.policy)
            #expect(store.verify().isEmpty)
            let stats = store.stats()
            #expect(stats.totalBytes <= Self.policy.maxTotalBytes!)
            #expect(stats.totalBytes > Self.policy.maxTotalBytes! - 2_100, "evicted only what the cap asked for: \(stats.totalBytes)")
            var present = 0
            for writer in 0..<4 {
                for index in 0..<150 {
                    let name = "writer-\(writer)-\(index)"
                    guard let found = store.contents(for: CacheTestData.url(name)) else { continue }
                    #expect(found.bytes == Self.bytes(for: name))
                    present += 1
                }
            }
            #expect(present == stats.entryCount)
            let files = try FileManager.default.contentsOfDirectory(atPath: cache)
            #expect(!files.contains { $0.contains(".tmp-") })
        }
    }
    #endif
}

/// Whether this run is the step of its own for the tests that start several processes or keep a core
/// busy for seconds (`IMGCACHE_RUN_ALONE=1`, which `.ci/run` sets after the suite): run alongside
/// the suite on two cores, they took the CPU from its tests with deadlines, which then failed.
let runsAlone = ProcessInfo.processInfo.environment["IMGCACHE_RUN_ALONE"] == "1"
    || ProcessInfo.processInfo.environment["IMGCACHE_CRASH_TEST_FOLDER"] != nil

struct CacheTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
