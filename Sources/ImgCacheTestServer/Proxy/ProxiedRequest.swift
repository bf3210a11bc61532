#if CommandLine
/// One request line as a ``TestProxyServer`` received it.
public struct ProxiedRequest: Sendable, Hashable, CustomStringConvertible {
    /// e.g. `"GET"` or `"CONNECT"`.
    public let method: String
    /// The request target exactly as sent: `"http://127.0.0.1:8080/a.png"` (absolute form),
    /// `"127.0.0.1:8443"` (CONNECT's authority form), or `"/a.png"` (origin form, which a proxy refuses).
    public let target: String

    public init(method: String, target: String) {
        self.method = method
        self.target = target
    }

    /// `"METHOD target"`.
    public var description: String { "\(method) \(target)" }
}
#endif
