/// A page fetched over HTTP.
public struct LoadedPage: Sendable {
    /// The body.
    public let bytes: [UInt8]
    /// The URL after redirects: relative references resolve against it.
    public let url: WebURL
    /// The `charset` of the `Content-Type`, if any: the page's encoding as the server declares it.
    public let charset: String?
    /// The HTTP version the page came over, when the transport tells: images from the same origin
    /// can start at that protocol's limit (``ImageDownloader/noteHTTPVersion(_:forOriginOf:)``).
    public var httpVersion: HTTPVersion? = nil
}

/// Why a page could not be fetched.
public struct PageLoadError: Error, Sendable, CustomStringConvertible {
    /// The page's URL.
    public let url: String
    /// What went wrong.
    public let reason: String

    /// "URL: reason".
    public var description: String { "\(url): \(reason)" }
}

/// Fetches pages (not images) through an `ImageTransport`.
public enum PageLoader {
    /// GETs `url`, following up to `maxRedirects` http(s) redirects, within `timeout`, connecting
    /// only to addresses `privateNetworks` allows.
    /// - Throws: `PageLoadError` for a non-2xx status, a transport failure or too many redirects.
    public static func load(_ url: WebURL, transport: any ImageTransport, userAgent: String = DownloadPolicy.defaultUserAgent,
                            timeout: Duration = .seconds(60), maxBytes: Int = 200 * 1024 * 1024,
                            maxRedirects: Int = 10, privateNetworks: PrivateNetworkAccess = .allowed) async throws -> LoadedPage {
        let deadline = ContinuousClock.now + timeout
        var current = url
        for _ in 0...maxRedirects {
            let response: TransportResponse
            do {
                response = try await transport.sendCheckingAddresses(TransportRequest(
                    url: current.serializedWithoutFragment, headers: [("User-Agent", userAgent), ("Accept", "text/html,*/*")],
                    maxBytes: maxBytes, deadline: deadline, privateNetworks: privateNetworks))
            } catch {
                throw PageLoadError(url: current.serialized, reason: "\(error)")
            }
            switch response.status {
            case 301, 302, 303, 307, 308:
                guard let location = response.header("Location"), let next = WebURL(location, relativeTo: current), next.isHTTP else {
                    throw PageLoadError(url: current.serialized, reason: "HTTP \(response.status) with no usable Location")
                }
                current = next
            case 200..<300:
                return LoadedPage(bytes: response.body, url: current, charset: response.header("Content-Type").flatMap(charset(in:)),
                                  httpVersion: response.httpVersion)
            default:
                throw PageLoadError(url: current.serialized, reason: "HTTP \(response.status)")
            }
        }
        throw PageLoadError(url: url.serialized, reason: "more than \(maxRedirects) redirects")
    }

    /// The `charset` parameter of a `Content-Type` value.
    static func charset(in contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingASCIIWhitespace.lowercased() == "charset" else { continue }
            let value = pair[1].trimmingASCIIWhitespace
            return String(value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 ? value.dropFirst().dropLast() : value)
        }
        return nil
    }
}

extension Substring {
    var trimmingASCIIWhitespace: Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
        return result
    }
}
