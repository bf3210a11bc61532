@testable import ImgCache
import ImgCacheTestServer
import Testing

/// `maxBytes`: from `Content-Length` before the body, and counted while the body arrives.
@Suite("Transport size limits")
struct TransportLimitTests {
    static let megabyte = 1024 * 1024

    /// `count` bytes that start like a PNG. Transports never look at the format, and a real 5 MB
    /// PNG (checksummed) takes long enough in debug builds to hold up the cooperative threads
    /// that other, timing-sensitive tests run on.
    private static func pngLike(count: Int) -> [UInt8] {
        TestImages.pngSignature + [UInt8](repeating: 0x42, count: count - TestImages.pngSignature.count)
    }

    @Test(arguments: TransportKind.allCases)
    func fiveMegabyteImageOverAOneMegabyteLimitIsTooLarge(kind: TransportKind) async throws {
        try await withTransport(kind) { server, transport in
            server.route("/big.png", .image(bytes: Self.pngLike(count: 5 * Self.megabyte), contentType: "image/png"))
            let error = await transportError {
                try await transport.send(.get(server.url("/big.png"), maxBytes: Self.megabyte))
            }
            #expect(error as? TransportError == .tooLarge(limit: Self.megabyte))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func declaredLengthOverTheLimitIsTooLargeBeforeAnyBody(kind: TransportKind) async throws {
        try await withTransport(kind) { server, transport in
            // Only the head arrives (then the server closes): the verdict must come from
            // Content-Length, not from a truncated body.
            server.route("/huge.png", .truncated(bytes: [], declaredLength: 50 * Self.megabyte))
            let error = await transportError {
                try await transport.send(.get(server.url("/huge.png"), maxBytes: Self.megabyte))
            }
            #expect(error as? TransportError == .tooLarge(limit: Self.megabyte))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func bodyOfExactlyTheLimitIsAccepted(kind: TransportKind) async throws {
        try await withTransport(kind) { server, transport in
            let png = Self.pngLike(count: 200_000)
            server.route("/exact.png", .image(bytes: png, contentType: "image/png"))
            let response = try await transport.send(.get(server.url("/exact.png"), maxBytes: png.count))
            #expect(response.body == png)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func bodyWithoutLengthIsCutOffOnceItPassesTheLimit(kind: TransportKind) async throws {
        let server = try ChunkedTestServer(totalBytes: 16 * Self.megabyte)
        defer { server.stop() }
        let transport = kind.make()
        let error = await transportError {
            try await transport.send(.get(server.url, maxBytes: Self.megabyte))
        }
        await transport.shutdown()
        #expect(error as? TransportError == .tooLarge(limit: Self.megabyte))
    }
}
