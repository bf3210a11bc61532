#if CommandLine
import ArgumentParser
import Foundation
import ImgCache
import ImgCacheHTTPClient
import ImgCacheCurl

/// `--http-client`: which HTTP client downloads the images.
enum HTTPClientChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// libcurl's multi interface on a thread of its own (Linux).
    case curl
    /// AsyncHTTPClient on SwiftNIO.
    case asyncHTTPClient = "async-http-client"


    /// The choices this build has.
    static var available: [HTTPClientChoice] {
        #if os(Linux) && canImport(CCurl)
        allCases
        #else
        [.asyncHTTPClient]
        #endif
    }

    static var allValueStrings: [String] { available.map(\.rawValue) }

    /// The transport of `choice`, or when none was chosen, libcurl's where the command is built
    /// with it and the machine has it (on the same work it took less CPU time than AsyncHTTPClient,
    /// markedly so over HTTPS and HTTP/2: Benchmarks/HISTORY.md), else AsyncHTTPClient's.
    /// - Throws: ``CertificateTrustError`` when `trust` names a CA file or folder that cannot be
    ///   used; `CurlUnavailableError` when curl was chosen and libcurl cannot be loaded.
    static func makeTransport(_ choice: HTTPClientChoice?, trust: CertificateTrust, proxy: ProxySettings, connectTimeout: Duration,
                              maxConnectionsPerHost: Int) throws -> any ImageTransport {
        if let choice {
            return try choice.makeTransport(trust: trust, proxy: proxy, connectTimeout: connectTimeout,
                                            maxConnectionsPerHost: maxConnectionsPerHost)
        }
        #if os(Linux) && canImport(CCurl)
        do {
            return try HTTPClientChoice.curl.makeTransport(trust: trust, proxy: proxy, connectTimeout: connectTimeout,
                                                           maxConnectionsPerHost: maxConnectionsPerHost)
        } catch let error as CurlUnavailableError {
            // A binary taken to a machine without libcurl still works; one whose libcurl is unfit
            // for it says so, once.
            if error.isInstalled { Diagnostics.note("imgcache: \(error); downloading with AsyncHTTPClient") }
        }
        #endif
        return try HTTPClientChoice.asyncHTTPClient.makeTransport(trust: trust, proxy: proxy, connectTimeout: connectTimeout,
                                                                  maxConnectionsPerHost: maxConnectionsPerHost)
    }

    /// Whether a command's arguments ask for AsyncHTTPClient (`--http-client async-http-client`,
    /// or with `=`), read before ArgumentParser parses them, only to decide whether to begin
    /// loading libcurl. Wrong only after a `--` (the rest are inputs), and then only that load is
    /// left out.
    static func asksForAsyncHTTPClient(_ arguments: ArraySlice<String>) -> Bool {
        let option = "--http-client", value = asyncHTTPClient.rawValue
        return arguments.contains("\(option)=\(value)") || zip(arguments, arguments.dropFirst()).contains { $0 == (option, value) }
    }

    /// A transport of this kind.
    private func makeTransport(trust: CertificateTrust, proxy: ProxySettings, connectTimeout: Duration,
                       maxConnectionsPerHost: Int) throws -> any ImageTransport {
        switch self {
        case .curl:
            #if os(Linux) && canImport(CCurl)
            let transport = try CurlTransport(trust: trust, proxy: proxy, connectTimeout: connectTimeout)
            // libcurl (as curl does) writes every TLS session's keys to this file; AsyncHTTPClient
            // does not. Set for another tool, it would get imgcache's too: said, not changed,
            // since it is the user's environment.
            if let keyLog = ProcessInfo.processInfo.environment["SSLKEYLOGFILE"], !keyLog.isEmpty {
                Diagnostics.warn("SSLKEYLOGFILE is set: libcurl writes the TLS session keys to \(keyLog)")
            }
            return transport
            #else
            // Parsed even where it is not offered (ArgumentParser reads the raw value).
            throw CurlUnavailableError(reason: "this build has no libcurl (Linux only)")
            #endif
        case .asyncHTTPClient:
            return try AsyncHTTPClientTransport(trust: trust, proxy: proxy, connectTimeout: connectTimeout,
                                                maxConnectionsPerHost: maxConnectionsPerHost)
        }
    }
}
#endif
