/// An origin: scheme, host and port, what requests are limited under (as browsers limit them).
///
/// Made from a parsed URL's parts without formatting a string: every image's requests are counted
/// under one.
package struct Origin: Hashable, Sendable, CustomStringConvertible {
    let scheme: String
    let host: BrowserURL.Host?
    /// The explicit port, or the scheme's default.
    let port: Int

    package init(_ url: BrowserURL) {
        scheme = url.scheme
        host = url.hostValue
        port = url.port ?? (url.scheme == "https" ? 443 : 80)
    }

    /// `https://host:443`.
    package var description: String {
        "\(scheme)://\(host?.serialized ?? ""):\(port)"
    }
}
