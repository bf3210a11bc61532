@testable import ImgCache
import ImgCacheHTTPClient
import Testing

/// What only the AsyncHTTPClient transport promises.
@Suite("AsyncHTTPClient transport")
struct AsyncHTTPClientTransportTests {
    @Test func stopsReadingAtTheLimitEvenOnLoopback() async throws {
        // AsyncHTTPClient pulls the body on demand, so the server manages to write only the limit
        // plus what the sockets buffer. (URLSession on Linux cancels through a process-wide queue
        // and may read much more, or all, of a fast body first: see TransportSessionDelegate.)
        let megabyte = TransportLimitTests.megabyte
        let total = 64 * megabyte
        let server = try ChunkedTestServer(totalBytes: total)
        defer { server.stop() }
        let transport = AsyncHTTPClientTransport()
        let error = await transportError {
            try await transport.send(.get(server.url, maxBytes: megabyte))
        }
        await transport.shutdown()
        #expect(error as? TransportError == .tooLarge(limit: megabyte))
        let written = try #require(await server.bytesWritten())
        #expect(written < 16 * megabyte)
    }
}
