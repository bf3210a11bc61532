#if CommandLine
import AsyncHTTPClient
import ImgCache
import NIOConcurrencyHelpers
import NIOCore

/// The transport's address guards: one ``AddressGuardProxy``, and an HTTP client that goes
/// through it, per ``PrivateNetworkAccess`` asked for, started on first use.
final class AddressGuards: Sendable {
    struct Entry: Sendable {
        let proxy: AddressGuardProxy
        let client: HTTPClient
    }

    private let group: any EventLoopGroup
    private let connectTimeout: Duration
    private let resolvedNames: [String: IPAddress]
    private let makeClient: @Sendable (HTTPClient.Configuration.Proxy?) -> HTTPClient
    /// Started or starting guards; a task so that concurrent first requests share one start.
    private let entries = NIOLockedValueBox<[PrivateNetworkAccess: Task<Entry, any Error>]>([:])

    /// - Parameter group: where the guards' proxies run (the transport's event loop).
    init(group: any EventLoopGroup, connectTimeout: Duration, resolvedNames: [String: IPAddress],
         makeClient: @escaping @Sendable (HTTPClient.Configuration.Proxy?) -> HTTPClient) {
        self.group = group
        self.connectTimeout = connectTimeout
        self.resolvedNames = resolvedNames
        self.makeClient = makeClient
    }

    /// The guard for `access`, started if it was not.
    func entry(for access: PrivateNetworkAccess) async throws -> Entry {
        let task = entries.withLockedValue { entries in
            if let task = entries[access] { return task }
            let task = Task { [group, connectTimeout, resolvedNames, makeClient] in
                let proxy = try await AddressGuardProxy.start(
                    access: access, group: group, connectTimeout: TimeAmount(connectTimeout),
                    names: resolvedNames)
                return Entry(proxy: proxy, client: makeClient(.server(host: "127.0.0.1", port: proxy.port)))
            }
            entries[access] = task
            return task
        }
        do {
            return try await task.value
        } catch {
            throw TransportError.connection("cannot start the private-network guard: \(error)")
        }
    }

    /// Shuts the clients and proxies down.
    func shutdown() async {
        for task in entries.withLockedValue({ $0.values }) {
            guard let entry = try? await task.value else { continue }
            try? await entry.client.shutdown()
            entry.proxy.shutdown()
        }
    }
}
#endif
