#if CommandLine
#if os(Linux) && canImport(CCurl)
import CCurl
#endif

/// libcurl's loading, begun ahead of the first ``CurlTransport``: for a command line, as soon as
/// it knows which of its commands runs.
///
/// libcurl is opened (with the thirty-odd libraries behind it, and OpenSSL initialised) once per
/// process, by the first transport made: a few milliseconds, which a short run (a warm fetch of
/// one page) would otherwise spend before its first request. Begun here, the load runs on a thread
/// of its own while the command line is parsed, and the transport made afterwards finds libcurl
/// loaded, or waits for the rest of the load. A run that then makes no libcurl transport has
/// loaded it for nothing (a few milliseconds on another core, and the libraries' memory).
///
/// The process must not call `exit` while the load is under way (the libraries' exit handlers
/// would run against libraries still being initialised): call ``finish()`` before it, on every
/// way out. Where this build has no libcurl (Apple platforms), both do nothing.
public struct CurlLibraryLoading: Sendable {
    private let started: Bool

    private init(started: Bool) {
        self.started = started
    }

    /// Starts loading libcurl on a thread of its own, and returns at once.
    public static func start() -> CurlLibraryLoading {
        #if os(Linux) && canImport(CCurl)
        CurlLibraryLoading(started: imgcache_curl_start_loading())
        #else
        CurlLibraryLoading(started: false)
        #endif
    }

    /// Returns once the load begun by ``start()`` has ended, whether or not libcurl could be
    /// loaded (a ``CurlTransport`` made afterwards says why not).
    public func finish() {
        #if os(Linux) && canImport(CCurl)
        if started { _ = imgcache_curl_load() }
        #endif
    }
}
#endif
