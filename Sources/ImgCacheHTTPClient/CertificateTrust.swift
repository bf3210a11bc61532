#if CommandLine
public import Foundation
import NIOSSL

/// Which certificate authorities HTTPS servers' certificates may chain to.
///
/// By default, the system's: on Linux the distribution's bundle (`/etc/ssl/certs/ca-certificates.crt`
/// and the folder beside it). ``fromEnvironment(adding:environment:)`` reads `SSL_CERT_FILE` and
/// `SSL_CERT_DIR` the way OpenSSL (and so curl and wget) read them: each replaces the system's
/// bundle file or folder. Extra CA files (`imgcache --cacert`) are trusted in addition, as a
/// company's TLS-inspecting proxy or a test server needs.
public struct CertificateTrust: Sendable, Equatable {
    /// PEM bundles or hashed certificate folders that replace the system's roots; empty for the
    /// system's.
    public var roots: [String]
    /// PEM files whose certificates are trusted in addition to ``roots``.
    public var additionalCAFiles: [String]

    /// Creates a trust setting.
    public init(roots: [String] = [], additionalCAFiles: [String] = []) {
        self.roots = roots
        self.additionalCAFiles = additionalCAFiles
    }

    /// The system's roots.
    public static let system = CertificateTrust()

    /// The system's roots, or those `SSL_CERT_FILE` / `SSL_CERT_DIR` name instead, plus `additionalCAFiles`.
    public static func fromEnvironment(
        adding additionalCAFiles: [String] = [],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> CertificateTrust {
        // OpenSSL reads SSL_CERT_DIR as a list, like PATH.
        let file = environment["SSL_CERT_FILE"].map { [$0] } ?? []
        let folders = environment["SSL_CERT_DIR"].map { $0.split(separator: ":").map(String.init) } ?? []
        let roots = (file + folders).filter { !$0.isEmpty }
        return CertificateTrust(roots: roots, additionalCAFiles: additionalCAFiles)
    }

    /// Reads every file and folder named, so that a wrong path is reported before any download
    /// rather than as a failed handshake on every image.
    /// - Throws: ``CertificateTrustError`` naming the file and the problem.
    public func validate() throws {
        _ = try tlsConfiguration()
    }

    /// The client TLS configuration: full verification (chain and host name) against these roots.
    func tlsConfiguration() throws -> TLSConfiguration {
        let roots = try rootFilesAndFolders()
        var files = roots.files
        let folders = roots.folders
        for path in files {
            // A system-sized bundle is only looked at, not parsed (parsing its 140 certificates
            // raised the peak memory of a run that may never open a TLS connection);
            // BoringSSL reads it when the first connection needs it.
            try Self.checkCertificates(in: path, parse: false)
        }
        for path in additionalCAFiles { try Self.checkCertificates(in: path) }

        // NIOSSL takes one primary source (a file, or a hashed folder that BoringSSL searches
        // lazily) and any number of additional ones, which it reads as files of certificates. So a
        // folder can only be the primary source; further folders are read here. Certificates that
        // repeat one another are fine.
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let folder = folders.first {
            configuration.trustRoots = .file(folder)
        } else if let file = files.first {
            configuration.trustRoots = .file(file)
            files.removeFirst()
        }
        configuration.additionalTrustRoots += files.map { .file($0) }
        for folder in folders.dropFirst() {
            configuration.additionalTrustRoots.append(.certificates(Self.certificates(inFolder: folder)))
        }
        configuration.additionalTrustRoots += additionalCAFiles.map { .file($0) }
        return configuration
    }

    /// ``roots`` in their order, as PEM files and hashed certificate folders.
    /// - Throws: ``CertificateTrustError`` for a path that is neither.
    package func rootFilesAndFolders() throws -> (files: [String], folders: [String]) {
        var files: [String] = []
        var folders: [String] = []
        for path in roots {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw CertificateTrustError(path: path, problem: "no such file or folder")
            }
            if isDirectory.boolValue { folders.append(path) } else { files.append(path) }
        }
        return (files, folders)
    }

    /// Every certificate in the PEM files of a folder (unreadable entries are skipped).
    private static func certificates(inFolder folder: String) -> [NIOSSLCertificate] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.sorted().flatMap { name in
            (try? NIOSSLCertificate.fromPEMFile((folder as NSString).appendingPathComponent(name))) ?? []
        }
    }

    /// Checks that a PEM file holds at least one certificate: parsed, or (`parse: false`) by its
    /// `BEGIN CERTIFICATE` line.
    private static func checkCertificates(in path: String, parse: Bool = true) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            let exists = FileManager.default.fileExists(atPath: path)
            throw CertificateTrustError(path: path, problem: exists ? "cannot be read" : "no such file")
        }
        let holdsCertificates = parse
            ? !((try? NIOSSLCertificate.fromPEMBytes(Array(data))) ?? []).isEmpty
            : data.range(of: Data("-----BEGIN CERTIFICATE-----".utf8)) != nil
        guard holdsCertificates else {
            throw CertificateTrustError(path: path, problem: "holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
    }
}

/// A CA file or folder that could not be used.
public struct CertificateTrustError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file or folder.
    public var path: String
    /// What is wrong with it.
    public var problem: String

    /// "/etc/x.pem: no such file"
    public var description: String { "\(path): \(problem)" }

    package init(path: String, problem: String) {
        self.path = path
        self.problem = problem
    }
}
#endif
