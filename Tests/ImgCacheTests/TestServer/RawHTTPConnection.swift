import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking, minimal HTTP/1.1 client over a plain TCP socket, for looking at exactly what the
/// test server puts on the wire (keep-alive, truncation, resets, slow bodies).
/// Use it only inside `runBlocking { … }` so it never blocks Swift's cooperative threads.
final class RawHTTPConnection {
    enum Failure: Error, Equatable {
        case posix(Int32)
        case closedBeforeHead
        case malformed
    }

    struct Response {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: [UInt8]
        /// The whole `Content-Length` arrived (always true without a `Content-Length`).
        var complete: Bool

        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    private let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to 127.0.0.1:`port`; every later receive gives up after `timeout` seconds.
    init(port: Int, timeout: Double = 5) throws {
        #if os(Linux)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure.posix(errno) }
        var tv = timeval()
        tv.tv_sec = .init(Int(timeout))
        tv.tv_usec = .init(Int((timeout - Double(Int(timeout))) * 1_000_000))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else {
            let e = errno
            _ = close(fd)
            throw Failure.posix(e)
        }
        self.fd = fd
    }

    deinit {
        _ = close(fd)
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            #if canImport(Glibc)
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            #else
            let n = bytes[sent...].withUnsafeBytes { Darwin.send(fd, $0.baseAddress, $0.count, 0) }
            #endif
            guard n > 0 else { throw Failure.posix(errno) }
            sent += n
        }
    }

    /// Sends a GET for `path` (with `extraHeaders` lines, each without CRLF).
    func get(_ path: String, _ extraHeaders: [String] = [], method: String = "GET") throws {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for h in extraHeaders { text += h + "\r\n" }
        if method != "GET" { text += "Content-Length: 0\r\n" }
        try send(text + "\r\n")
    }

    /// One `recv`: the bytes read (buffered ones first), `[]` at EOF; throws on errors and timeouts.
    func receiveSome() throws -> [UInt8] {
        if !buffer.isEmpty {
            defer { buffer = [] }
            return buffer
        }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n < 0 { throw Failure.posix(errno) }
        return Array(chunk[0..<n])
    }

    /// Reads one response's head, then its body up to `Content-Length` (or to EOF without one).
    /// A body cut short by EOF comes back with `complete == false`. With `bodyLimit` set, stops after
    /// that many body bytes (for slow bodies).
    func readResponse(bodyLimit: Int? = nil, noBody: Bool = false) throws -> Response {
        var data: [UInt8] = []
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            let more = try receiveSome()
            if more.isEmpty { throw Failure.closedBeforeHead }
            data += more
            headEnd = Self.find(separator, in: data)
        }
        let head = String(decoding: data[0..<headEnd!], as: UTF8.self)
        var rest = Array(data[(headEnd! + 4)...])
        var lines = head.components(separatedBy: "\r\n")
        let statusParts = lines.removeFirst().split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw Failure.malformed }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = Response(status: status, headers: headers, body: [], complete: true)
        if noBody || status == 304 || status == 204 || (100..<200).contains(status) {
            buffer = rest
            return response
        }
        let length = response.header("Content-Length").flatMap { Int($0) }
        let wanted = min(length ?? .max, bodyLimit ?? .max)
        while rest.count < wanted {
            let more = try receiveSome()
            if more.isEmpty { break }
            rest += more
        }
        if rest.count > wanted {
            buffer = Array(rest[wanted...])
            rest = Array(rest[..<wanted])
        }
        response.body = rest
        response.complete = length.map { rest.count >= $0 } ?? true
        return response
    }

    /// Reads until EOF; returns what came, or the error that ended it.
    func readUntilClosed() -> Result<[UInt8], Failure> {
        var all: [UInt8] = []
        while true {
            do {
                let more = try receiveSome()
                if more.isEmpty { return .success(all) }
                all += more
            } catch let error as Failure {
                return .failure(error)
            } catch {
                return .failure(.malformed)
            }
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i..<(i + needle.count)].elementsEqual(needle) {
            return i
        }
        return nil
    }
}

/// Runs blocking work on a GCD thread so the cooperative pool stays free.
extension RawHTTPConnection {
    /// Whether connecting to `port` on 127.0.0.1 is refused (nothing listens there any more).
    static func isRefused(port: Int) async throws -> Bool {
        try await runBlocking {
            do {
                _ = try RawHTTPConnection(port: port)
                return false
            } catch RawHTTPConnection.Failure.posix(let code) {
                return code == ECONNREFUSED
            }
        }
    }
}

func runBlocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try body() })
        }
    }
}
