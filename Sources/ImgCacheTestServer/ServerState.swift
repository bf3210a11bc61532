#if CommandLine
import Foundation

/// A value protected by a lock. Every access goes through `withLock`, which is what makes the
/// `@unchecked Sendable` sound.
final class LockedBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// What the connection handler is told to do with one request, after routing.
enum Action: Sendable {
    case notFound
    case methodNotAllowed
    case behave(Behaviour)
}

/// Routes, counters and the request log of one server, shared by all its connections.
final class ServerState: Sendable {
    private struct Route: Sendable {
        var behaviour: Behaviour
        var hits: Int = 0
    }

    private struct Data: Sendable {
        var routes: [String: Route] = [:]
        var recorded: [RecordedRequest] = []
        var nextConnectionID = 1
        var totalConnections = 0
        var openConnections = 0
        var maxConnections = 0
        var activeRequests = 0
        var maxRequests = 0
        /// Requests in flight per connection id; a connection with none has no entry.
        var activeByConnection: [Int: Int] = [:]
        var maxRequestsOnOneConnection = 0
        /// The application protocol of each connection (by id) once it is known.
        var protocols: [Int: String] = [:]
    }

    private let data = LockedBox(Data())

    // MARK: routes

    func setRoute(_ path: String, _ behaviour: Behaviour) {
        let key = Self.normalise(path)
        data.withLock { $0.routes[key] = Route(behaviour: behaviour) }
    }

    func removeRoute(_ path: String) {
        let key = Self.normalise(path)
        data.withLock { _ = $0.routes.removeValue(forKey: key) }
    }

    // MARK: connections

    /// A connection was accepted; returns its id.
    func connectionOpened() -> Int {
        data.withLock { d in
            let id = d.nextConnectionID
            d.nextConnectionID += 1
            d.totalConnections += 1
            d.openConnections += 1
            d.maxConnections = max(d.maxConnections, d.openConnections)
            return id
        }
    }

    func connectionClosed() {
        data.withLock { $0.openConnections -= 1 }
    }

    /// The connection `connectionID` speaks `name` (`"h2"` or `"http/1.1"`): known at once without
    /// TLS, after the handshake (ALPN) with it.
    func protocolNegotiated(_ name: String, connectionID: Int) {
        data.withLock { $0.protocols[connectionID] = name }
    }

    // MARK: requests

    /// Records the request, counts it as in flight, and decides what to do with it.
    func beginRequest(_ request: RecordedRequest) -> Action {
        data.withLock { d in
            d.recorded.append(request)
            d.activeRequests += 1
            d.maxRequests = max(d.maxRequests, d.activeRequests)
            let onConnection = d.activeByConnection[request.connectionID, default: 0] + 1
            d.activeByConnection[request.connectionID] = onConnection
            d.maxRequestsOnOneConnection = max(d.maxRequestsOnOneConnection, onConnection)
            guard request.method == "GET" else { return .methodNotAllowed }
            let key: String
            if d.routes[request.uri] != nil {
                key = request.uri
            } else if d.routes[request.path] != nil {
                key = request.path
            } else {
                return .notFound
            }
            d.routes[key]!.hits += 1
            let n = d.routes[key]!.hits
            return .behave(Self.resolve(d.routes[key]!.behaviour, hit: n))
        }
    }

    func endRequest(connectionID: Int) {
        data.withLock { d in
            d.activeRequests -= 1
            let onConnection = d.activeByConnection[connectionID, default: 1] - 1
            d.activeByConnection[connectionID] = onConnection > 0 ? onConnection : nil
        }
    }

    private static func resolve(_ behaviour: Behaviour, hit n: Int) -> Behaviour {
        guard case .sequence(let list) = behaviour else { return behaviour }
        guard !list.isEmpty else {
            return .status(500, body: Array("empty Behaviour.sequence".utf8))
        }
        return resolve(list[min(n - 1, list.count - 1)], hit: n)
    }

    // MARK: queries

    func requests(_ path: String) -> [RecordedRequest] {
        let key = Self.normalise(path)
        return data.withLock { d in d.recorded.filter { $0.uri == key || $0.path == key } }
    }

    var allRequests: [RecordedRequest] { data.withLock { $0.recorded } }
    var totalRequests: Int { data.withLock { $0.recorded.count } }
    var totalConnections: Int { data.withLock { $0.totalConnections } }
    var openConnections: Int { data.withLock { $0.openConnections } }
    var maxConcurrentConnections: Int { data.withLock { $0.maxConnections } }
    var maxConcurrentRequests: Int { data.withLock { $0.maxRequests } }
    var maxConcurrentRequestsOnOneConnection: Int { data.withLock { $0.maxRequestsOnOneConnection } }
    var negotiatedProtocols: [String] {
        data.withLock { d in d.protocols.sorted { $0.key < $1.key }.map(\.value) }
    }

    func resetCounters() {
        data.withLock { d in
            d.recorded = []
            d.totalConnections = 0
            d.maxConnections = d.openConnections
            d.maxRequests = d.activeRequests
            d.maxRequestsOnOneConnection = d.activeByConnection.values.max() ?? 0
            d.protocols = [:]
        }
    }

    static func normalise(_ path: String) -> String {
        path.hasPrefix("/") ? path : "/" + path
    }
}
#endif
