#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A minimal HTTP/1.1 server on `127.0.0.1` that answers every request with `200 OK`, no
/// `Content-Length` and a chunked body of `totalBytes`, written 64 KiB at a time, recording how many
/// body bytes the socket accepted before the client went away.
///
/// `TestImageServer` always sends `Content-Length`, which lets a transport reject an oversized body
/// from the head alone; this one is how tests reach the byte counting done while receiving.
final class ChunkedTestServer: @unchecked Sendable {
    /// The port it listens on.
    let port: Int
    private let listener: Int32
    private let totalBytes: Int
    // Guards `written` and `done`, shared between the serving thread and the test.
    private let lock = NSLock()
    private var written = 0
    private var done = false

    init(totalBytes: Int) throws {
        self.totalBytes = totalBytes
        (listener, port) = try loopbackSocket(listeningWithBacklog: 8)
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// `http://127.0.0.1:PORT/chunked.png`.
    var url: String { "http://127.0.0.1:\(port)/chunked.png" }

    /// Body bytes the kernel accepted, once the response is over (nil while it is still going).
    func bytesWritten(waitingUpTo limit: Duration = .seconds(5)) async -> Int? {
        let end = ContinuousClock.now + limit
        while ContinuousClock.now < end {
            if let value = lock.withLock({ done ? written : nil }) { return value }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// Stops listening (the serving thread ends after the current connection).
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func serve() {
        let connection = accept(listener, nil, nil)
        guard connection >= 0 else { return }
        defer {
            close(connection)
            lock.withLock { done = true }
        }
        // A client that stops reading without closing must not block this thread for ever.
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
        var one: Int32 = 1
        setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif

        // Read the request head (requests here have no body).
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.ends(with: Array("\r\n\r\n".utf8)) {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            request += buffer[..<count]
        }

        let responseHead = "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        guard sendAll(connection, Array(responseHead.utf8)) else { return }
        let chunkSize = 64 * 1024
        let chunk = Array("\(String(chunkSize, radix: 16))\r\n".utf8)
            + [UInt8](repeating: 0x42, count: chunkSize) + Array("\r\n".utf8)
        var sent = 0
        while sent < totalBytes {
            guard sendAll(connection, chunk) else { return }
            sent += chunkSize
            lock.withLock { written = sent }
        }
        _ = sendAll(connection, Array("0\r\n\r\n".utf8))
    }

    private func sendAll(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
        #if canImport(Glibc)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0
        #endif
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, flags) }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
