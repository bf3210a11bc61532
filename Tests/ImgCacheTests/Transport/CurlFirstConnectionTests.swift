#if os(Linux)
import Foundation
import Glibc
@testable import ImgCache
@testable import ImgCacheHTTPClient
@testable import ImgCacheCurl
import Testing

/// A port on 127.0.0.1 that takes connections (the kernel completes them into its backlog) but
/// never reads or answers: a TLS handshake with it never ends.
private final class SilentListener {
    let port: Int
    private let descriptor: Int32

    init() throws {
        (descriptor, port) = try loopbackSocket(listeningWithBacklog: 64)
    }

    deinit { close(descriptor) }

    /// An https URL on the port.
    var url: String { "https://127.0.0.1:\(port)/a.png" }
}

/// libcurl holds a burst of requests to a new https host until the first one's connection is up
/// (so that over HTTP/2 they share it); what is held must still end in time and on cancellation.
@Suite("libcurl requests held for a host's first connection")
struct CurlFirstConnectionTests {
    /// A libcurl transport whose own time-outs (a minute) end nothing before the requests' deadlines.
    private static func transport() throws -> CurlTransport {
        try CurlTransport(trust: .system, proxy: .direct, connectTimeout: .seconds(60), readTimeout: .seconds(60), resolvedNames: [:])
    }

    @Test("requests held for a first connection that never comes up end at their own deadlines, not the first one's")
    func heldRequestsKeepTheirDeadlines() async throws {
        let listener = try SilentListener()
        let transport = try Self.transport()
        let url = listener.url
        let first = Task { try await transport.send(TransportRequest(url: url, maxBytes: 1_000, deadline: .now + .seconds(60))) }
        try await Task.sleep(for: .milliseconds(200))
        var results: [Result<TransportResponse, any Error>] = []
        let (elapsed, stalled) = await elapsedExcludingStalls {
            let deadline = ContinuousClock.now + .seconds(1)
            results = await withTaskGroup(of: Result<TransportResponse, any Error>.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        await Result { try await transport.send(TransportRequest(url: url, maxBytes: 1_000, deadline: deadline)) }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(results.count == 4)
        for result in results {
            // "While connecting"; or, for a task that a starved test process started only after
            // its deadline, before sending.
            #expect(throws: TransportError.self) { try result.get() }
            if case .failure(let error as TransportError) = result {
                #expect(error == .timedOut(phase: .connecting) || error == .timedOut(phase: nil), "\(error)")
            }
        }
        // Far below the first request's minute, whatever else the machine is doing.
        #expect(elapsed - stalled < .seconds(30), "took \(elapsed), of which the process was stalled \(stalled)")
        await transport.shutdown()
        await #expect(throws: TransportError.connection("the transport is shut down")) { try await first.value }
    }

    @Test("a request held for the first connection ends at once when its caller gives up, and the transport's shutdown ends the rest")
    func heldRequestIsCancelled() async throws {
        let listener = try SilentListener()
        let transport = try Self.transport()
        let url = listener.url
        let request = TransportRequest(url: url, maxBytes: 1_000, deadline: .now + .seconds(60))
        let first = Task { try await transport.send(request) }
        try await Task.sleep(for: .milliseconds(200))
        let held = Task { try await transport.send(request) }
        try await Task.sleep(for: .milliseconds(200))
        let (elapsed, stalled) = await elapsedExcludingStalls {
            held.cancel()
            await #expect(throws: CancellationError.self) { try await held.value }
        }
        // Not held until the first request's minute is up; loose, for a machine busy with other tests.
        #expect(elapsed - stalled < .seconds(20), "took \(elapsed), of which the process was stalled \(stalled)")

        let another = Task { try await transport.send(request) }
        try await Task.sleep(for: .milliseconds(200))
        await transport.shutdown()
        await #expect(throws: TransportError.connection("the transport is shut down")) { try await another.value }
        await #expect(throws: TransportError.connection("the transport is shut down")) { try await first.value }
    }
}
#endif
