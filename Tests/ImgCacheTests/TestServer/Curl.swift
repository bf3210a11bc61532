import Foundation
import ImgCacheTestServer
import Subprocess

/// The system's `curl`, run as a child process: a real client independent of this package, with
/// HTTP/2 (nghttp2), ALPN, proxies and CONNECT tunnels, for checking what the test servers do.
enum Curl {
    /// One URL's result.
    struct Transfer: Sendable {
        /// The last response's status; 0 when none arrived.
        let status: Int
        /// `"2"`, `"1.1"`, or `"0"` when no response arrived.
        let httpVersion: String
        /// Whatever body bytes arrived, complete or not.
        let body: [UInt8]
    }

    struct Outcome: Sendable {
        /// curl's exit status: 0 when every transfer succeeded, else the last failure's code
        /// (e.g. 18 partial body, 35 TLS handshake, 56 receive failure or refused CONNECT,
        /// 60 certificate rejected, 92 HTTP/2 stream error).
        let exitCode: Int32
        /// In the order the URLs were given.
        let transfers: [Transfer]
        let stderr: String

        /// The only transfer, for single-URL calls.
        var transfer: Transfer { transfers[0] }
    }

    static let path = "/usr/bin/curl"
    static let isAvailable = FileManager.default.isExecutableFile(atPath: path)

    /// The options that make curl trust the test CA and nothing else.
    static let trustTestCA = ["--cacert", TestCertificates.caPath]

    /// Fetches `urls` (distinct, so results can be matched to them) in one curl process, so that
    /// they may share connections, with `options` such as `--http2`, `--parallel` or `-x <proxy>`.
    static func fetch(_ urls: [String], _ options: [String] = []) async throws -> Outcome {
        try await run(urls, options)
    }

    static func fetch(_ url: String, _ options: [String] = []) async throws -> Outcome {
        try await fetch([url], options)
    }

    private static func run(_ urls: [String], _ options: [String]) async throws -> Outcome {
        precondition(Set(urls).count == urls.count, "URLs must be distinct")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("imgcache-curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        var arguments = ["--silent", "--show-error", "--max-time", "20", "--write-out", "%{http_code} %{http_version} %{url}\\n"]
        arguments += options
        for (index, url) in urls.enumerated() {
            arguments += ["--output", folder.appendingPathComponent("\(index)").path, url]
        }
        let result = try await Subprocess.run(.at(path), arguments: Arguments(arguments),
                                              output: .string(limit: collectedOutputLimit),
                                              error: .string(limit: collectedOutputLimit))
        let stdout = result.standardOutput
        let stderr = result.standardError

        // With --parallel the lines come in completion order, hence the URL on each.
        var byURL: [String: (status: Int, version: String)] = [:]
        for line in stdout.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 2).map(String.init)
            guard fields.count == 3 else { continue }
            byURL[fields[2]] = (Int(fields[0]) ?? 0, fields[1])
        }
        let transfers = urls.enumerated().map { index, url in
            let body = (try? Data(contentsOf: folder.appendingPathComponent("\(index)"))).map { [UInt8]($0) } ?? []
            let result = byURL[url] ?? (0, "0")
            return Transfer(status: result.status, httpVersion: result.version, body: body)
        }
        return Outcome(exitCode: result.terminationStatus.code, transfers: transfers, stderr: stderr)
    }
}
