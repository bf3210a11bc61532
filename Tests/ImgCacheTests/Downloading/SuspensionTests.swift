import Foundation
import ImgCacheTestServer
import Testing
@testable import ImgCache
@testable import ImgCacheSupport
@testable import ImgCacheURLs
@testable import ImgCacheStore

@Suite("Suspension: an app frozen in the background")
struct SuspensionTests {
    @Test("a gap in the clock past the silence limit, while downloads are outstanding, is a suspension; a beat or two late is not")
    func gapsAreSuspensions() {
        let clock = ManualClock()
        let watch = SuspensionWatch(clock: ElapsedTimeClock(clock), isBusy: { true })
        watch.keepWatching()
        let started = ContinuousClock.now
        clock.advance(by: .seconds(2))
        #expect(!watch.hasSuspended(after: started))
        clock.advance(by: .seconds(3))
        #expect(!watch.hasSuspended(after: started), "3 s since the last sighting is the limit, not past it")
        clock.advance(by: .seconds(60))
        #expect(watch.hasSuspended(after: started))
        #expect(watch.hasSuspended(after: started), "asked again, the answer stands")
        #expect(!watch.hasSuspended(after: ContinuousClock.now), "an exchange started after the resume was not broken by it")
    }

    @Test("with no download outstanding nothing beats, and a gap then is no download's suspension")
    func idleGapsDoNotCount() async throws {
        let clock = ManualClock()
        let busy = ThreadLocked(true)
        let watch = SuspensionWatch(clock: ElapsedTimeClock(clock), isBusy: { busy.withLock { $0 } })
        watch.keepWatching()
        #expect(watch.isWatching)
        busy.withLock { $0 = false }
        let giveUp = ContinuousClock.now + .seconds(30)
        while watch.isWatching, ContinuousClock.now < giveUp { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!watch.isWatching, "the beats stop at the first one that finds nothing outstanding")
        let started = ContinuousClock.now
        clock.advance(by: .seconds(600))
        busy.withLock { $0 = true }
        watch.keepWatching()
        #expect(!watch.hasSuspended(after: started))
        #expect(!watch.hasSuspended(after: .now - .seconds(3600)))
    }

    /// What the page's one image is answered with: first `first`, then the image at once.
    enum FirstAnswer: String, CaseIterable, CustomTestStringConvertible {
        /// Later than the timeout: the exchange times out.
        case late
        /// An HTTP 404, a little after the request: the server's answer.
        case notFound

        var testDescription: String { rawValue }
    }

    @Test("an app frozen while an image is in flight asks for it again when it runs, instead of reporting the time-out the gap made; a server's own answer stands",
          arguments: TransportKind.allCases, FirstAnswer.allCases)
    func suspendedMidDownload(kind: TransportKind, first: FirstAnswer) async throws {
        for suspended in [true, false] {
            let server = try await TestImageServer.start()
            let png = TestImages.png(width: 2, height: 2)
            let firstBehaviour: Behaviour = switch first {
            case .late: .image(bytes: png, contentType: "image/png", delay: .seconds(8))
            case .notFound: .status(404, delay: .milliseconds(500))
            }
            server.route("/photo.png", .sequence([firstBehaviour, .image(bytes: png, contentType: "image/png")]))
            let folder = try TemporaryFolder()
            let store = try ImageCacheStore(directory: folder.path("cache"))
            let transport = kind.make()
            let clock = ManualClock()
            var configuration = LocalizationSession.Configuration(
                store: store, transport: transport, downloadPolicy: DownloadPolicy(timeout: .seconds(2), retries: 0),
                debounce: .zero)
            configuration.clock = clock
            let loader = OfflinePageLoader(session: LocalizationSession(configuration))
            // The app is frozen for a minute while the request is out: when it runs again, its
            // clock has moved on by that much at once. The freeze comes from a thread of its own as
            // soon as the server has the request, not from this task: the suite's other tests can
            // hold the cooperative pool's threads for longer than the 2 s time-out, and a freeze
            // after the time-out is not the case under test.
            let frozen = DispatchSemaphore(value: 0)
            if suspended {
                Thread.detachNewThread {
                    while server.requestCount("/photo.png") < 1 { usleep(1_000) }
                    clock.advance(by: .seconds(60))
                    frozen.signal()
                }
            }
            let page = try await loader.open(html: Array("<img src=photo.png>".utf8), pageURL: BrowserURL(server.url("/article.html")))
            while server.requestCount("/photo.png") < 1 { try await Task.sleep(for: .milliseconds(10)) }
            if suspended { await Task.detached { frozen.wait() }.value }
            let outcomes = await page.downloads.value
            switch (first, suspended) {
            case (.late, true):
                #expect(outcomes.map(\.status) == [.downloaded], "\(outcomes)")
                #expect(server.requestCount("/photo.png") == 2)
                #expect(FileManager.default.contents(atPath: folder.path("cache/" + (outcomes[0].localName ?? "-"))) == Data(png))
            case (.late, false):
                #expect(outcomes.count == 1 && outcomes[0].failure?.description.hasPrefix("timed out after 2 s") == true,
                        "without a gap the time-out stands: \(outcomes)")
                #expect(server.requestCount("/photo.png") == 1)
            case (.notFound, _):
                #expect(outcomes.map(\.failure?.description) == ["HTTP 404"], "the server said so: not asked again")
                #expect(server.requestCount("/photo.png") == 1)
            }
            #expect(loader.session.outstandingCount == 0)
            await transport.shutdown()
            try await server.shutdown()
        }
    }
}
