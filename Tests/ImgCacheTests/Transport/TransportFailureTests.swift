import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import ImgCache
import ImgCacheTestServer
@testable import ImgCacheURLSession
import Testing

/// Broken exchanges: truncated bodies, resets, slow servers, cancellation.
@Suite("Transport failures")
struct TransportFailureTests {
    @Test(arguments: TransportKind.allCases)
    func truncatedBodyIsAConnectionError(kind: TransportKind) async throws {
        try await withTransport(kind) { server, transport in
            let png = TestImages.png(width: 8, height: 8)
            server.route("/t.png", .truncated(bytes: Array(png.prefix(20)), declaredLength: png.count))
            let error = await transportError { try await transport.send(.get(server.url("/t.png"))) }
            guard case .connection(let reason) = error as? TransportError else {
                Issue.record("expected .connection, got \(String(describing: error))")
                return
            }
            #expect(reason.contains("truncated"))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func resetIsAConnectionError(kind: TransportKind) async throws {
        try await withTransport(kind) { server, transport in
            server.route("/r.png", .reset)
            let error = await transportError { try await transport.send(.get(server.url("/r.png"))) }
            guard case .connection = error as? TransportError else {
                Issue.record("expected .connection, got \(String(describing: error))")
                return
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func slowBodyTimesOutAtTheDeadline(kind: TransportKind) async throws {
        try await withTransport(kind) { server, transport in
            // About 70 s of dripping: only a deadline can end the request within the bound below.
            server.route("/slow.png", .drip(bytes: TestImages.png(width: 4, height: 4), interval: .seconds(1)))
            var error: (any Error)?
            let (elapsed, stalled) = await elapsedExcludingStalls {
                error = await transportError {
                    try await transport.send(.get(server.url("/slow.png"), timeout: .milliseconds(300)))
                }
            }
            // The head came at once, then a byte a second: the deadline found it in the body.
            guard case .timedOut(.receivingBody(let received, _))? = error as? TransportError else {
                Issue.record("expected a time-out receiving the body, got \(String(describing: error))")
                return
            }
            #expect(received < TestImages.png(width: 4, height: 4).count)
            #expect(elapsed >= .milliseconds(250))
            // Generous: on two cores the other tests' child processes can starve this one for a while
            // (CI once saw a bound of 6 s missed here), and the process-stall probe misses short stalls.
            #expect(elapsed - stalled < .seconds(20), "took \(elapsed), of which the process was stalled \(stalled)")
        }
    }

    @Test(arguments: TransportKind.allCases)
    func slowHeadTimesOutAtTheDeadline(kind: TransportKind) async throws {
        try await withTransport(kind) { server, transport in
            // A minute before the head: only a deadline can end the request within the bound below.
            server.route("/late.png", .status(200, delay: .seconds(60)))
            var error: (any Error)?
            let (elapsed, stalled) = await elapsedExcludingStalls {
                error = await transportError {
                    try await transport.send(.get(server.url("/late.png"), timeout: .milliseconds(300)))
                }
            }
            // Connected and asked at once; the head never came. URLSession cannot say whether it was
            // still connecting.
            let phase: TimeoutPhase = kind == .urlSession ? .beforeResponse : .waitingForResponse
            #expect(error as? TransportError == .timedOut(phase: phase), "got \(String(describing: error))")
            // Generous: on two cores the other tests' child processes can starve this one for a while
            // (CI once saw a bound of 6 s missed here), and the process-stall probe misses short stalls.
            #expect(elapsed - stalled < .seconds(20), "took \(elapsed), of which the process was stalled \(stalled)")
        }
    }

    @Test(arguments: TransportKind.allCases)
    func pastDeadlineTimesOutWithoutSending(kind: TransportKind) async throws {
        try await withTransport(kind) { server, transport in
            server.route("/a.png", .image(bytes: TestImages.gif(), contentType: "image/gif"))
            let request = TransportRequest(url: server.url("/a.png"), maxBytes: 1_000, deadline: .now - .seconds(1))
            let error = await transportError { try await transport.send(request) }
            #expect(error as? TransportError == .timedOut(phase: nil))
            #expect(server.totalRequests == 0)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func cancellationPropagates(kind: TransportKind) async throws {
        try await withTransport(kind) { server, transport in
            // About a minute of dripping: only the cancellation can end it within the bound below.
            server.route("/slow.png", .drip(bytes: TestImages.png(width: 4, height: 4), interval: .milliseconds(500)))
            var result: Result<TransportResponse, any Error>?
            let (elapsed, stalled) = await elapsedExcludingStalls {
                let task = Task { try await transport.send(.get(server.url("/slow.png"), timeout: .seconds(120))) }
                try? await Task.sleep(for: .milliseconds(200))
                task.cancel()
                result = await task.result
            }
            #expect(throws: CancellationError.self) { try result?.get() }
            // Well before the drip's end. Loose, and not counting time the process could not run
            // tasks at all: with CPU-heavy tests on both cores, a sibling test once took 11.3 s.
            #expect(elapsed - stalled < .seconds(25), "took \(elapsed), of which the process was stalled \(stalled)")
        }
    }

    @Test(arguments: TransportKind.allCases)
    func refusedConnectionIsAConnectionError(kind: TransportKind) async throws {
        // Bound but never listening, and held for the whole test: no other test's server can take
        // the port (a port closed after listening once could be, and answered with HTTP 400).
        let (descriptor, port) = try loopbackSocket(listeningWithBacklog: nil)
        defer { close(descriptor) }
        let url = "http://127.0.0.1:\(port)/a.png"
        let transport = kind.make()
        let error = await transportError { try await transport.send(.get(url)) }
        await transport.shutdown()
        guard case .connection = error as? TransportError else {
            Issue.record("expected .connection, got \(String(describing: error))")
            return
        }
    }
}

@Suite("URLSession's refusals")
struct URLSessionRefusalTests {
    @Test("an http:// image App Transport Security refuses fails once with what to change, and is not retried")
    func appTransportSecurity() {
        let error = TransportSessionDelegate.transportError(
            for: URLError(.appTransportSecurityRequiresSecureConnection), maxBytes: 1_000, host: "example.com")
        #expect(!error.isTransient, "retrying cannot help: it is refused again each time")
        #expect(error.description.contains("App Transport Security") && error.description.contains("Info.plist"))
        let untrusted = TransportSessionDelegate.transportError(
            for: URLError(.serverCertificateUntrusted), maxBytes: 1_000, host: "example.com")
        #expect(untrusted == .certificate(host: "example.com", problem: CertificateProblem(.untrustedIssuer, "not issued by a trusted CA")))
        #expect(TransportSessionDelegate.transportError(for: URLError(.timedOut), maxBytes: 1_000, host: "example.com").isTransient)
    }
}
