#if CommandLine
/// libcurl could not be used for a `CurlTransport`: not installed (`libcurl.so.4` in the system's
/// library folders), older than 7.87, built without OpenSSL, an asynchronous resolver or HTTP/2, or
/// not in this build (Apple platforms). Declared on every platform, so that callers can
/// catch it without asking which platform has the transport.
public struct CurlUnavailableError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the loader said ("libcurl.so.4: cannot open shared object file: No such file or directory").
    public var reason: String
    /// Whether a libcurl was installed, and found unfit (`reason` says why).
    public var isInstalled: Bool

    /// Creates the error.
    public init(reason: String, isInstalled: Bool = false) {
        self.reason = reason
        self.isInstalled = isInstalled
    }

    /// "libcurl cannot be used: …"
    public var description: String { "libcurl cannot be used: \(reason)" }
}
#endif
