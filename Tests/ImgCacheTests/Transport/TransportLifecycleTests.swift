@testable import ImgCache
import ImgCacheTestServer
import Testing

/// Shutting down, and forgetting to.
@Suite("Transport lifecycle")
struct TransportLifecycleTests {
    @Test(arguments: TransportKind.allCases)
    func droppedWithoutShutdownIsCleanedUp(kind: TransportKind) async throws {
        let server = try await TestImageServer.start()
        server.route("/a.gif", .image(bytes: TestImages.gif(), contentType: "image/gif"))
        do {
            let transport = kind.make()
            let response = try await transport.send(.get(server.url("/a.gif")))
            #expect(response.status == 200)
        }  // deinit (AsyncHTTPClient fails a precondition in debug builds for clients never shut down)
        try await server.shutdown()
    }

    @Test(arguments: TransportKind.allCases)
    func shutdownTwiceIsHarmless(kind: TransportKind) async {
        let transport = kind.make(proxy: ProxySettings(proxy: "http://127.0.0.1:9")!)
        await transport.shutdown()
        await transport.shutdown()
    }

    @Test(arguments: TransportKind.allCases)
    func sendAfterShutdownIsAConnectionError(kind: TransportKind) async throws {
        let transport = kind.make()
        await transport.shutdown()
        let error = await transportError { try await transport.send(.get("http://127.0.0.1:9/a.png")) }
        guard case .connection = error as? TransportError else {
            Issue.record("expected .connection, got \(String(describing: error))")
            return
        }
    }

    @Test(arguments: TransportKind.allCases)
    func shutdownFailsWhatIsInFlight(kind: TransportKind) async throws {
        try await withTransport(kind) { server, transport in
            // About a minute of dripping: only the shutdown can end it within the bound below.
            server.route("/slow.png", .drip(bytes: TestImages.png(width: 4, height: 4), interval: .milliseconds(500)))
            var result: Result<TransportResponse, any Error>?
            let (elapsed, stalled) = await elapsedExcludingStalls {
                let task = Task { try await transport.send(.get(server.url("/slow.png"), timeout: .seconds(120))) }
                try? await Task.sleep(for: .milliseconds(200))
                await transport.shutdown()
                result = await task.result
            }
            #expect(throws: TransportError.self) { try result?.get() }
            // Well before the drip's end. Loose, and not counting time the process could not run
            // tasks at all: with CPU-heavy tests on both cores, one run took 11.3 s.
            #expect(elapsed - stalled < .seconds(25), "took \(elapsed), of which the process was stalled \(stalled)")
        }
    }
}
