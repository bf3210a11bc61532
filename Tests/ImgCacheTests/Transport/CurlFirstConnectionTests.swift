#if os(Linux)
import Foundation
import Glibc
@testable import ImgCache
@testable import ImgCacheHTTPClient
import Testing

/// A port on 127.0.0.1 that takes connections (the kernel completes them into its backlog) but
/// never reads or answers: a TLS handshake with it never ends.
private final class SilentListener {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard fd >= 0, bound else { throw POSIXError(.EADDRNOTAVAIL) }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}

/// libcurl holds a burst of requests to a new https host until the first one's connection is up
/// (so that over HTTP/2 they share it); what is held must still end in time and on cancellation.
@Suite("libcurl requests held for a host's first connection")
struct CurlFirstConnectionTests {
    @Test("requests held for a first connection that never comes up end at their own deadlines, not the first one's")
    func heldRequestsKeepTheirDeadlines() async throws {
        let listener = try SilentListener()
        let transport = try CurlTransport(trust: .system, proxy: .direct, connectTimeout: .seconds(60),
                                          readTimeout: .seconds(60), resolvedNames: [:])
        let url = "https://127.0.0.1:\(listener.port)/a.png"
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
        let transport = try CurlTransport(trust: .system, proxy: .direct, connectTimeout: .seconds(30),
                                          readTimeout: .seconds(30), resolvedNames: [:])
        let url = "https://127.0.0.1:\(listener.port)/a.png"
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
