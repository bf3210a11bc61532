import ImgCacheURLs
/// A page fetched over HTTP.
struct LoadedPage: Sendable {
    /// The body.
    let bytes: [UInt8]
    /// The URL after redirects: relative references resolve against it.
    let url: BrowserURL
    /// The `charset` of the `Content-Type`, if any: the page's encoding as the server declares it.
    let charset: String?
    /// The HTTP version the page came over, when the transport tells: images from the same origin
    /// can start at that protocol's limit (``ImageDownloader/noteHTTPVersion(_:forOriginOf:)``).
    var httpVersion: HTTPVersion? = nil
}

/// Why a page could not be fetched.
public struct PageLoadError: Error, Sendable, CustomStringConvertible {
    /// The page's URL (after the redirects followed until the failure).
    public let url: String
    /// What went wrong.
    public let reason: DownloadFailure

    /// "URL: reason".
    public var description: String { "\(url): \(reason)" }
}

/// Fetches pages (not images) through an `ImageTransport`, with the exchange images use and a
/// page's own limits: a longer time, a larger body, more redirects, no retries, any body.
enum PageLoader {
    /// A page's own limits, larger than an image's.
    struct Limits: Sendable {
        /// For every attempt and redirect together.
        var timeout: Duration = .seconds(60)
        var maxBytes = 200 * 1024 * 1024
        /// http(s) redirects followed.
        var maxRedirects = 10
    }

    /// GETs `url`, following up to `limits.maxRedirects` http(s) redirects, within
    /// `limits.timeout`, connecting only to addresses `privateNetworks` allows.
    /// - Throws: `PageLoadError` for a non-2xx status, a transport failure or too many redirects.
    static func load(_ url: BrowserURL, transport: any ImageTransport, userAgent: String = DownloadPolicy.defaultUserAgent,
                     privateNetworks: PrivateNetworkAccess = .allowed, limits: Limits = Limits()) async throws -> LoadedPage {
        let exchange = HTTPExchange(transport: transport, policy: HTTPExchange.Policy(
            timeout: limits.timeout, retries: 0, retryDelay: .zero, maxRedirects: limits.maxRedirects, maxBytes: limits.maxBytes,
            privateNetworks: privateNetworks, acceptedFormats: nil))
        switch await exchange.get(url, headers: [("User-Agent", userAgent), ("Accept", "text/html,*/*")]) {
        case .success(let success):
            let response = success.response
            return LoadedPage(bytes: response.body, url: success.url, charset: response.header("Content-Type").flatMap(charset(in:)),
                              httpVersion: response.httpVersion)
        case .failure(let failure):
            switch failure.reason.kind {
            case .redirectWithoutLocation(let status), .redirectToInvalidURL(let status, _), .redirectNotHTTP(let status, _):
                throw PageLoadError(url: failure.url.serialized, reason: DownloadFailure(.unusableRedirect(status: status)))
            case .tooManyRedirects:
                throw PageLoadError(url: url.serialized, reason: failure.reason)
            default:
                throw PageLoadError(url: failure.url.serialized, reason: failure.reason)
            }
        }
    }

    /// The `charset` parameter of a `Content-Type` value.
    static func charset(in contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingOptionalWhitespace.lowercased() == "charset" else { continue }
            let value = pair[1].trimmingOptionalWhitespace
            return String(value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 ? value.dropFirst().dropLast() : value)
        }
        return nil
    }
}

extension Substring {
    /// Without HTTP's optional whitespace (spaces and tabs, RFC 9110) at either end.
    fileprivate var trimmingOptionalWhitespace: Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
        return result
    }
}
