import ImgCacheSupport
import ImgCacheURLs
import ImgCacheMarkup
/// How many requests each origin (scheme, host, port) may have in flight, following the HTTP
/// version the origin answers with.
///
/// An origin starts with the HTTP/1.1 limit (a handful of connections, as browsers open), because
/// nothing is known of it yet. The first response that came over HTTP/2 or HTTP/3 raises its limit
/// to the multiplexed one (the streams one connection may carry), releasing the requests that were
/// waiting; a later HTTP/1.1 answer (say, a CDN that stopped offering h2) lowers it again as
/// requests end. The transport keeps to the server's own `SETTINGS_MAX_CONCURRENT_STREAMS`
/// underneath: AsyncHTTPClient and URLSession queue what the server does not accept yet. A
/// transport that learns that limit (libcurl's) reports it, and it bounds the origin here too.
final class OriginLimits: Sendable {
    private struct Entry {
        let semaphore: AsyncSemaphore
        var version: HTTPVersion?
        var streamLimit: Int?
    }

    private let http1Limit: Int
    private let multiplexedLimit: Int
    private let origins = ThreadLocked<[Origin: Entry]>([:])

    init(http1Limit: Int, multiplexedLimit: Int) {
        self.http1Limit = max(1, http1Limit)
        self.multiplexedLimit = max(1, multiplexedLimit)
    }

    /// The semaphore requests to `origin` wait on.
    func semaphore(for origin: Origin) -> AsyncSemaphore {
        origins.withLock { origins in
            if let existing = origins[origin] { return existing.semaphore }
            let semaphore = AsyncSemaphore(value: http1Limit)
            origins[origin] = Entry(semaphore: semaphore, version: nil, streamLimit: nil)
            return semaphore
        }
    }

    /// Records the HTTP version `origin` answered with, and the stream limit its server set when
    /// the transport knows it, adapting its limit when either changed. An unknown version (a
    /// transport that cannot tell) changes nothing.
    func observe(_ version: HTTPVersion?, streamLimit: Int? = nil, from origin: Origin) {
        guard let version else { return }
        let changed: (AsyncSemaphore, Int?)? = origins.withLock { origins in
            guard let current = origins[origin] else { return nil }
            let streamLimit = streamLimit ?? current.streamLimit
            guard current.version != version || current.streamLimit != streamLimit else { return nil }
            origins[origin]?.version = version
            origins[origin]?.streamLimit = streamLimit
            return (current.semaphore, streamLimit)
        }
        guard let (semaphore, streamLimit) = changed else { return }
        semaphore.setLimit(version.multiplexes ? min(multiplexedLimit, max(1, streamLimit ?? .max)) : http1Limit)
    }

    /// The limit in force for `origin` now (for tests and diagnostics).
    func limit(for origin: Origin) -> Int {
        semaphore(for: origin).currentLimit
    }
}
