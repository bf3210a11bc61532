import Foundation
import ImgCacheHTTPClient
import ImgCacheTestServer
import Synchronization
import Testing
@testable import ImgCache
@testable import ImgCacheURLs
@testable import ImgCacheStore

/// A transport written outside the package, with only the public API, that sends without a task
/// (`send(_:completion:)`) and starts the downloader's tasks itself (`startTask(for:_:)`): what the
/// libcurl transport does, open to anyone.
private final class CallbackTransport: ImageTransport {
    let inner: AsyncHTTPClientTransport
    let sentWithoutTask = Atomic(0)
    let sentFromTask = Atomic(0)
    let tasksStarted = Atomic(0)

    init(_ inner: AsyncHTTPClientTransport) { self.inner = inner }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        sentFromTask.add(1, ordering: .relaxed)
        return try await inner.send(request)
    }

    func send(_ request: TransportRequest,
              completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void) -> (@Sendable () -> Void)? {
        sentWithoutTask.add(1, ordering: .relaxed)
        let inner = self.inner
        let task = Task {
            do {
                completion(.success(try await inner.send(request)))
            } catch {
                completion(.failure(error))
            }
        }
        return { task.cancel() }
    }

    func startTask(for access: PrivateNetworkAccess, _ work: sending @escaping () async -> Void) -> Task<Void, Never> {
        tasksStarted.add(1, ordering: .relaxed)
        return Task(operation: work)
    }

    func shutdown() async { await inner.shutdown() }
    var keepsDeadlines: Bool { inner.keepsDeadlines }
    var checksConnectedAddresses: Bool { inner.checksConnectedAddresses }
}

@Suite("A transport that sends without a task")
struct TransportWithoutTaskTests {
    @Test("every image's first request goes without a task and the rest of its exchange in the transport's tasks: redirects, 404s and cancellation as with any transport")
    func firstRequestsWithoutATask() async throws {
        let server = try await TestImageServer.start()
        server.route("/a.png", .image(bytes: TestImages.png(), contentType: "image/png"))
        server.route("/b.png", .redirect(to: "/moved/b.png"))
        server.route("/moved/b.png", .image(bytes: TestImages.png(width: 2, height: 2), contentType: "image/png"))
        server.route("/gone.png", .status(404))
        server.route("/slow.gif", .image(bytes: TestImages.gif(), contentType: "image/gif", delay: .seconds(60)))
        let folder = try TemporaryFolder()
        let store = try ImageCacheStore(directory: folder.path("images"))
        let transport = CallbackTransport(AsyncHTTPClientTransport())
        let downloader = ImageDownloader(transport: transport, store: store, policy: DownloadPolicy(retryDelay: .milliseconds(20)))

        let outcomes = await downloader.fetchAll(["/a.png", "/b.png", "/gone.png"].map { BrowserURL(server.url($0))! })
        #expect(outcomes.map(\.status) == [.downloaded, .downloaded, .failed])
        #expect(outcomes[2].failure?.kind == .httpStatus(404))
        #expect(store.contents(for: BrowserURL(server.url("/b.png"))!)?.bytes == TestImages.png(width: 2, height: 2))
        #expect(transport.sentWithoutTask.load(ordering: .relaxed) == 3, "each image's first request")
        #expect(transport.sentFromTask.load(ordering: .relaxed) == 1, "the redirect's request, from the task that followed it")
        #expect(transport.tasksStarted.load(ordering: .relaxed) >= 2, "the redirect and the 404 went on in the transport's tasks")
        #expect(downloader.outstandingCount == 0)

        // Cancelling stops a request sent without a task through what its sending returned.
        let slow = Task { await downloader.fetch(BrowserURL(server.url("/slow.gif"))!) }
        #expect(try await serverEventually { server.requestCount("/slow.gif") == 1 })
        await downloader.cancelAll()
        let cancelled = await slow.value
        #expect(cancelled.failure?.kind == .cancelled)
        #expect(cancelled.failure?.isCancelled == true)
        #expect(downloader.outstandingCount == 0)
        await transport.shutdown()
        try await server.shutdown()
    }
}
