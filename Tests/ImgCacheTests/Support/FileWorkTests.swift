import Foundation
import Testing
@testable import ImgCache
import ImgCacheURLSession
@testable import ImgCacheSupport
@testable import ImgCacheStore

@Suite("Where a session's file work runs")
struct FileWorkTests {
    /// Set on the calling task: work that runs in place sees it, work on a Dispatch queue does not.
    @TaskLocal static var onCallingTask = false

    /// Whether a piece of work (sleeping for `sleeping` seconds) ran on the calling task.
    private static func ranInPlace(_ fileWork: FileWork, sleeping: TimeInterval = 0, cacheLook: Bool = false) async throws -> Bool {
        try await $onCallingTask.withValue(true) {
            let work: @Sendable () -> Bool = {
                if sleeping > 0 { Thread.sleep(forTimeInterval: sleeping) }
                return FileWorkTests.onCallingTask
            }
            return cacheLook ? await fileWork.runCacheLook(work) : try await fileWork.runDocumentFileWork(work)
        }
    }

    @Test("off the pool, a page's reads and writes and its looks in the cache never run on the calling task")
    func offPool() async throws {
        let fileWork = FileWork(placement: .offPool)
        for _ in 0..<20 {
            #expect(try await !Self.ranInPlace(fileWork))
            #expect(try await !Self.ranInPlace(fileWork, cacheLook: true))
        }
    }

    @Test("in place while quick: one slow piece sends the rest of that session's work off the pool, and no other session's")
    func oneSlowSessionDecidesForItselfOnly() async throws {
        let slowShare = FileWork(placement: .inPlaceWhileQuick(limit: .milliseconds(20)))
        let localDisk = FileWork(placement: .inPlaceWhileQuick(limit: .milliseconds(20)))
        #expect(try await Self.ranInPlace(slowShare))
        #expect(try await Self.ranInPlace(slowShare, sleeping: 0.05), "the slow piece itself ran in place")
        #expect(try await !Self.ranInPlace(slowShare), "the next went off the pool")
        #expect(try await Self.ranInPlace(slowShare, cacheLook: true), "looks in the cache are timed apart from file reads")
        #expect(try await Self.ranInPlace(localDisk), "another session still runs its quick work in place")
        #expect(try await Self.ranInPlace(localDisk, cacheLook: true))
    }

    @Test("a session runs its file work where its configuration says")
    func sessionTakesItsPlacement() async throws {
        let folder = try CacheTestFolder()
        var configuration = LocalizationSession.Configuration(store: try ImageCacheStore(directory: folder.path),
                                                              transport: URLSessionTransport())
        #expect(try await Self.ranInPlace(LocalizationSession(configuration).fileWork), "by default, quick work in place")
        configuration.fileWork = .offPool
        #expect(try await !Self.ranInPlace(LocalizationSession(configuration).fileWork))
    }
}
