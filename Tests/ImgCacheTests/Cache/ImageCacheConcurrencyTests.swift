import Foundation
import Testing
@testable import ImgCache
@testable import ImgCacheMarkup
@testable import ImgCacheStore

@Suite("Image cache store shared by threads and processes")
struct ImageCacheConcurrencyTests {
    /// Bytes that depend on the URL's name and a variant, so that any mix-up shows.
    static func bytes(for name: String, variant: Int = 0, count: Int = 1_000) -> [UInt8] {
        CacheTestData.bytes(count, seed: name.hashValueStable &+ variant)
    }

    @Test("8 threads storing and reading 200 entries in one store: every read is right, every entry intact")
    func manyThreadsOneStore() async throws {
        try await offPool {
            let folder = try CacheTestFolder()
            let store = try ImageCacheStore(directory: folder.path, policy: CachePolicy(maxAge: 3600))
            let names = (0..<200).map { "entry-\($0)" }
            let wrongReads = ThreadSafeCounter()
            let failures = ThreadSafeCounter()

            CacheTestData.onThreads(8) { thread in
                for (index, name) in names.enumerated() where index % 8 == thread {
                    do {
                        try store.storeEntry(Self.bytes(for: name), for: CacheTestData.url(name), contentType: "image/png", etag: nil, lastModified: nil)
                        // Everyone also writes one shared entry, each with its own bytes.
                        try store.storeEntry(Self.bytes(for: "shared", variant: thread), for: CacheTestData.url("shared"), contentType: nil, etag: nil, lastModified: nil)
                    } catch {
                        failures.increment()
                    }
                    // Read other threads' entries while they are being written: absent or right, never wrong.
                    for other in names.shuffled().prefix(5) {
                        if let found = store.contents(for: CacheTestData.url(other)), found.bytes != Self.bytes(for: other) {
                            wrongReads.increment()
                        }
                        if let metadata = store.lookup(CacheTestData.url(other)).metadata,
                           !metadata.checksum.matches(Self.bytes(for: other)) {
                            wrongReads.increment()
                        }
                    }
                    if let shared = store.contents(for: CacheTestData.url("shared")),
                       !(0..<8).contains(where: { Self.bytes(for: "shared", variant: $0) == shared.bytes }) {
                        wrongReads.increment()
                    }
                }
            }

            #expect(failures.value == 0)
            #expect(wrongReads.value == 0)
            for name in names {
                guard case .fresh(let metadata) = store.lookup(CacheTestData.url(name)) else {
                    Issue.record("\(name) missing")
                    continue
                }
                #expect(metadata.byteCount == 1_000)
                #expect(store.contents(for: CacheTestData.url(name))?.bytes == Self.bytes(for: name))
            }
            #expect(store.contents(for: CacheTestData.url("shared")) != nil)
            #expect(store.stats().entryCount == 201)
            #expect(store.verify().isEmpty)
            #expect(!folder.allFiles().contains { $0.contains(".tmp-") }, "no temporary file left behind")
        }
    }

    @Test("two store instances on one folder, on different threads, keep the shared size cap exactly")
    func twoStoresOneFolder() async throws {
        try await offPool {
            let folder = try CacheTestFolder()
            let policy = CachePolicy(maxTotalBytes: 120_000)
            let stores = [try ImageCacheStore(directory: folder.path, policy: policy),
                          try ImageCacheStore(directory: folder.path, policy: policy)]
            let failures = ThreadSafeCounter()

            CacheTestData.onThreads(4) { thread in
                let store = stores[thread % 2]
                for index in 0..<80 {
                    let name = "t\(thread)-\(index)"
                    do {
                        try store.storeEntry(Self.bytes(for: name), for: CacheTestData.url(name), contentType: nil, etag: nil, lastModified: nil,
                                        now: CacheTestData.t0 + Double(index))
                    } catch {
                        failures.increment()
                    }
                }
            }

            #expect(failures.value == 0)
            let stats = stores[0].stats()
            // 320 stores of 1,000 bytes under a 120,000-byte cap: each instance saw the other's
            // stores and evictions, so exactly 120 entries remain, not fewer and not more.
            #expect(stats.totalBytes == 120_000)
            #expect(stats.entryCount == 120)
            #expect(stores[1].verify().isEmpty)
            // The survivors are the most recently used: the last 30 of each thread.
            for thread in 0..<4 {
                #expect(stores[0].lookup(CacheTestData.url("t\(thread)-79")) != .missing)
            }
        }
    }

    @Test("clearing the cache while other threads store never makes a store fail or leaves debris")
    func clearingWhileStoring() async throws {
        try await offPool {
            let folder = try CacheTestFolder()
            let store = try ImageCacheStore(directory: folder.path, naming: LocalImageNaming(fanOut: true),
                                            policy: CachePolicy(maxTotalBytes: 50_000))
            let failures = ThreadSafeCounter()
            CacheTestData.onThreads(5) { thread in
                for index in 0..<100 {
                    do {
                        if thread == 0 {
                            if index % 5 == 0 { try store.clear() }
                        } else {
                            let name = "t\(thread)-\(index)"
                            try store.storeEntry(Self.bytes(for: name), for: CacheTestData.url(name), contentType: nil, etag: nil, lastModified: nil)
                        }
                    } catch {
                        failures.increment()
                    }
                }
            }
            #expect(failures.value == 0)
            #expect(store.verify().isEmpty)
            #expect(store.stats().totalBytes <= 50_000)
            #expect(!folder.allFiles().contains { $0.contains(".tmp-") })
            // The size total still matches the folder: filling it again evicts down to the cap exactly.
            for index in 0..<60 {
                try store.storeEntry(Self.bytes(for: "after-\(index)"), for: CacheTestData.url("after-\(index)"), contentType: nil, etag: nil, lastModified: nil)
            }
            #expect(store.stats().totalBytes == 50_000)
        }
    }

    @Test("a reader never waits for a writer: lookups run while another process holds the folder lock, clear waits for it",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/flock")))
    func anotherProcessHoldingTheLock() async throws {
        try await offPool {
            let folder = try CacheTestFolder()
            let store = try ImageCacheStore(directory: folder.path)
            try store.storeEntry([1, 2, 3], for: CacheTestData.url("a"), contentType: nil, etag: nil, lastModified: nil)

            // flock(1) takes the same flock(2) lock the store takes, from a separate process.
            let holder = try CacheTestProcess.start(
                "exec /usr/bin/flock .imgcache.lock sh -c 'touch held; sleep 1; touch released'", in: folder.path)
            defer { holder.waitUntilExit() }
            try #require(CacheTestProcess.waitFor(folder.path + "/held"))

            let started = Date()
            #expect(store.contents(for: CacheTestData.url("a"))?.bytes == [1, 2, 3])
            #expect(store.lookup(CacheTestData.url("a")) != .missing)
            #expect(Date().timeIntervalSince(started) < 0.5, "reads take no lock")
            #expect(!folder.exists("released"))

            #expect(try store.clear() == 1)
            #expect(folder.exists("released"), "clear ran only after the other process let go")
            #expect(store.lookup(CacheTestData.url("a")) == .missing)
        }
    }

    @Test("while another process keeps swapping an image's file for other bytes, only the right bytes are ever served")
    func anotherProcessTamperingWithAnImage() async throws {
        try await offPool {
            let folder = try CacheTestFolder()
            let store = try ImageCacheStore(directory: folder.path)
            let original = Self.bytes(for: "a", count: 50_000)
            let entry = try store.storeEntry(original, for: CacheTestData.url("a"), contentType: nil, etag: nil, lastModified: nil)
            try Data(original).write(to: URL(fileURLWithPath: folder.path + "/original"))
            try Data(Self.bytes(for: "forged", count: 50_000)).write(to: URL(fileURLWithPath: folder.path + "/forged"))

            // Renames are atomic, like the store's own writes, so the image is always one whole file.
            let tamperer = try CacheTestProcess.start("""
                i=0
                while [ $i -lt 150 ]; do
                  cp forged .swap && mv .swap \(entry.localName)
                  cp original .swap && mv .swap \(entry.localName)
                  i=$((i+1))
                done
                touch done
                """, in: folder.path)
            var wrong = 0
            while !folder.exists("done") {
                if let found = store.contents(for: CacheTestData.url("a")), found.bytes != original {
                    wrong += 1
                }
                _ = store.lookup(CacheTestData.url("a"))
            }
            tamperer.waitUntilExit()
            #expect(tamperer.terminationStatus == 0)
            #expect(wrong == 0)
            // It ends on the original bytes, so the entry is whole again.
            #expect(store.contents(for: CacheTestData.url("a"))?.bytes == original)
        }
    }

    static let childFolderVariable = "IMGCACHE_STORE_TEST_CHILD_FOLDER"
    static let sharedPolicy = CachePolicy(maxTotalBytes: 400_000)

    /// The other half of ``twoProcessesOneFolder()``: runs only in the child process that test
    /// starts (this test binary again, filtered to this test), and is skipped otherwise.
    @Test("child process for the two-process test",
          .enabled(if: ProcessInfo.processInfo.environment[childFolderVariable] != nil))
    func childProcessWriter() throws {
        let folder = try #require(ProcessInfo.processInfo.environment[Self.childFolderVariable])
        try Data().write(to: URL(fileURLWithPath: folder + "/child-ready"))
        try #require(CacheTestProcess.waitFor(folder + "/go"))
        try Self.writeAndCheck(prefix: "child", folder: folder)
    }

    /// Stores 300 entries and reads the other process's entries meanwhile, recording an issue for
    /// any wrong read.
    static func writeAndCheck(prefix: String, folder: String) throws {
        let store = try ImageCacheStore(directory: folder, policy: sharedPolicy)
        let other = prefix == "child" ? "parent" : "child"
        for index in 0..<300 {
            let name = "\(prefix)-\(index)"
            try store.storeEntry(bytes(for: name), for: CacheTestData.url(name), contentType: nil, etag: nil, lastModified: nil)
            let peek = "\(other)-\(Int.random(in: 0..<300))"
            if let found = store.contents(for: CacheTestData.url(peek)) {
                #expect(found.bytes == bytes(for: peek))
            }
        }
    }

    #if os(Linux)
    @Test("two processes storing into one folder at once keep every entry intact and the cap exact")
    func twoProcessesOneFolder() async throws {
        try await offPool {
            // Swift PM runs this test binary directly; start it again, filtered to the child's test.
            let executable = CommandLine.arguments[0]
            guard executable.hasSuffix(".xctest"), FileManager.default.isExecutableFile(atPath: executable) else {
                Issue.record("cannot find the test binary to start a second process (\(executable))")
                return
            }
            let folder = try CacheTestFolder()
            let child = try BackgroundProcess(executable, ["--testing-library", "swift-testing", "--filter", "childProcessWriter"],
                                              environment: [Self.childFolderVariable: folder.path])

            try #require(CacheTestProcess.waitFor(folder.path + "/child-ready", timeout: 60), "child did not start")
            try Data().write(to: URL(fileURLWithPath: folder.path + "/go"))
            try Self.writeAndCheck(prefix: "parent", folder: folder.path)
            child.waitUntilExit()
            let childLog = child.output
            #expect(child.terminationStatus == 0, "\(childLog)")
            #expect(childLog.contains("\"child process for the two-process test\" passed"), "the child really ran its half: \(childLog)")

            let store = try ImageCacheStore(directory: folder.path, policy: Self.sharedPolicy)
            let stats = store.stats()
            #expect(stats.totalBytes == 400_000, "600 stores of 1,000 bytes under a 400,000-byte cap")
            #expect(stats.entryCount == 400)
            #expect(store.verify().isEmpty)
            #expect(!folder.allFiles().contains { $0.contains(".tmp-") })
            #expect(store.lookup(CacheTestData.url("parent-299")) != .missing)
            #expect(store.lookup(CacheTestData.url("child-299")) != .missing)
        }
    }
    #endif
}

/// A counter threads can bump.
final class ThreadSafeCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}

extension String {
    /// A hash that is the same in every process (`hashValue` is randomly seeded per process).
    var hashValueStable: Int {
        Int(truncatingIfNeeded: CacheLookupTable.nameHash(self))
    }
}
