import ArgumentParser
import ImgCache
import ImgCacheHTTPClient

/// `--http-client`: which HTTP client downloads the images.
enum HTTPClientChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// libcurl's multi interface on a thread of its own (Linux).
    case curl
    /// AsyncHTTPClient on SwiftNIO.
    case asyncHTTPClient = "async-http-client"

    /// libcurl where the command is built with it: on the same work it took less CPU time,
    /// markedly so over HTTPS and HTTP/2 (Benchmarks/README.md has the figures).
    static var standard: HTTPClientChoice {
        #if canImport(CCurl)
        .curl
        #else
        .asyncHTTPClient
        #endif
    }

    /// The choices this build has.
    static var available: [HTTPClientChoice] {
        #if canImport(CCurl)
        allCases
        #else
        [.asyncHTTPClient]
        #endif
    }

    static var allValueStrings: [String] { available.map(\.rawValue) }

    /// A transport of this kind.
    /// - Throws: ``CertificateTrustError`` when `trust` names a CA file or folder that cannot be used.
    func makeTransport(trust: CertificateTrust, proxy: ProxySettings, connectTimeout: Duration,
                       maxConnectionsPerHost: Int) throws -> any ImageTransport {
        switch self {
        case .curl:
            #if canImport(CCurl)
            return try CurlTransport(trust: trust, proxy: proxy, connectTimeout: connectTimeout,
                                     maxConnectionsPerHost: maxConnectionsPerHost)
            #else
            preconditionFailure("not offered on this platform")
            #endif
        case .asyncHTTPClient:
            return try AsyncHTTPClientTransport(trust: trust, proxy: proxy, connectTimeout: connectTimeout,
                                                maxConnectionsPerHost: maxConnectionsPerHost)
        }
    }
}
