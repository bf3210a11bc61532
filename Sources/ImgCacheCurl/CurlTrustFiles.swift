#if CommandLine
#if os(Linux) && canImport(CCurl)
import CCurl
import Foundation
import ImgCache
import ImgCacheHTTPClient
import NIOConcurrencyHelpers

/// A ``CertificateTrust`` as libcurl takes it: one CA file (`CURLOPT_CAINFO`) and one hashed
/// folder (`CURLOPT_CAPATH`).
///
/// libcurl reads a single CA file, so when the trust names several (the system's bundle and
/// `--cacert`'s, say) they are joined into a file in memory (`/proc/self/fd/N`), closed by
/// ``remove()``. A file rather than `CURLOPT_CAINFO_BLOB`: libcurl caches the store it builds from a file for
/// later connections (`CURLOPT_CA_CACHE_TIMEOUT`), and parsing a 140-certificate bundle for each
/// connection is slow under OpenSSL 3.
///
/// A bundle is left out when the folder holds every one of its certificates (``HashedCertificateFolder``),
/// as the system's folder holds the system's bundle where `update-ca-certificates` made both: the
/// folder, searched anyway, then trusts the same CAs without the time OpenSSL 3.0 takes to read
/// the bundle.
struct CurlTrustFiles: Sendable {
    /// The CA file (`CURLOPT_CAINFO`), or nil for none.
    let file: String?
    /// The CA folder (`CURLOPT_CAPATH`), or nil for none.
    let folder: String?
    /// The CA files left out because `folder` holds every certificate of them.
    let filesInFolder: [String]
    /// Whether `file` is a temporary file of ours, to delete.
    /// The descriptor of the joined file in memory, when the CAs had to be joined.
    private let memoryFile: Int32?

    /// libcurl's default CA bundle and folder, the system's (libcurl must be loaded).
    static var libcurlDefaults: (file: String?, folder: String?) {
        (imgcache_curl_default_ca_file().map { String(cString: $0) }, imgcache_curl_default_ca_folder().map { String(cString: $0) })
    }

    /// Works out the files for `trust`, which the caller has validated (``CertificateTrust/validate()``:
    /// ``CurlTransport`` does when it is made, before any download).
    /// - Parameter system: the system's bundle and folder, which the trust uses unless its roots
    ///   replace them (`SSL_CERT_FILE`, `SSL_CERT_DIR`).
    /// - Throws: ``CertificateTrustError`` when a root is neither a file nor a folder, or the joined
    ///   file cannot be written.
    init(_ trust: CertificateTrust, system: (file: String?, folder: String?) = libcurlDefaults) throws {
        var (files, folders) = try Self.roots(of: trust, system: system)
        // A file whose every certificate is in the folder adds nothing to it but the time OpenSSL
        // takes to read it. (The extra CA files are one or two certificates: not looked at.)
        if let folder = folders.first, !files.isEmpty {
            let hashed = HashedCertificateFolder(path: folder)
            let covered = files.filter { hashed.holdsEveryCertificate(of: $0) }
            files.removeAll { covered.contains($0) }
            filesInFolder = covered
        } else {
            filesInFolder = []
        }
        folder = folders.first
        // Further folders' certificates join the file: libcurl searches one folder.
        var sources = files.map { URL(fileURLWithPath: $0) }
        for extra in folders.dropFirst() {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: extra)) ?? []
            sources += names.sorted().map { URL(fileURLWithPath: extra).appendingPathComponent($0) }
        }
        sources += trust.additionalCAFiles.map { URL(fileURLWithPath: $0) }
        if sources.count <= 1 {
            file = sources.first?.path
            memoryFile = nil
            return
        }
        var joined = Data()
        for source in sources {
            guard let contents = try? Data(contentsOf: source) else { continue }
            joined.append(contents)
            joined.append(0x0A)
        }
        // In memory, not in a temporary folder: nothing is written outside the output and cache
        // folders, and nothing is left behind by a process that is killed.
        let descriptor = joined.withUnsafeBytes { imgcache_memory_file($0.baseAddress, $0.count) }
        guard descriptor >= 0 else {
            throw CertificateTrustError(path: sources[0].path, problem: "the joined CA file could not be made (\(String(cString: strerror(errno))))")
        }
        file = "/proc/self/fd/\(descriptor)"
        memoryFile = descriptor
    }

    /// The CA files and folders `trust` stands for: its roots, or the system's bundle and folder
    /// when it names none.
    /// - Throws: ``CertificateTrustError`` when a root is neither a file nor a folder.
    static func roots(of trust: CertificateTrust, system: (file: String?, folder: String?)) throws
        -> (files: [String], folders: [String]) {
        var roots = try trust.rootFilesAndFolders()
        if trust.roots.isEmpty {
            if let bundle = system.file { roots.files.append(bundle) }
            if let folder = system.folder { roots.folders.append(folder) }
        }
        return roots
    }

    /// Sets a transfer's CA options. Both are always set: nil turns libcurl's default off
    /// (`SSL_CERT_FILE` alone trusts that file, not the system's folder too).
    /// - Throws: `TransportError.invalidRequest` when libcurl refuses either: a transfer must not
    ///   go on trusting what it was not told to.
    func apply(to easy: UnsafeMutableRawPointer) throws {
        try set(easy, CURLOPT_CAINFO, file, "CURLOPT_CAINFO")
        try set(easy, CURLOPT_CAPATH, folder, "CURLOPT_CAPATH")
    }

    /// Deletes the joined file, if there is one.
    func remove() {
        if let memoryFile { close(memoryFile) }
    }

    private func set(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, _ value: String?, _ name: String) throws {
        let code = value.map { $0.withCString { imgcache_curl_easy_setopt_pointer(easy, option, $0) } }
            ?? imgcache_curl_easy_setopt_pointer(easy, option, nil)
        guard code == CURLE_OK else {
            throw TransportError.invalidRequest("libcurl refused \(name): \(String(cString: imgcache_curl_easy_strerror(code)))")
        }
    }
}
extension CurlTrustFiles {
    /// A trust's files, worked out when the first https transfer needs them: a run over plain
    /// http looks at no CA file or folder, and writes no joined file.
    final class OnFirstUse: Sendable {
        private let trust: CertificateTrust
        private let system: (file: String?, folder: String?)
        private let made = NIOLockedValueBox<Result<CurlTrustFiles, any Error>?>(nil)

        /// - Parameter trust: validated by the caller, so that a wrong path is reported before any download.
        init(_ trust: CertificateTrust, system: (file: String?, folder: String?)) {
            self.trust = trust
            self.system = system
        }

        /// The files, made on the first call.
        /// - Throws: ``CertificateTrustError`` when a file cannot be read or the joined file
        ///   cannot be written.
        func files() throws -> CurlTrustFiles {
            try made.withLockedValue { made in
                if let made { return try made.get() }
                let result = Result { try CurlTrustFiles(trust, system: system) }
                made = result
                return try result.get()
            }
        }

        /// Deletes the joined file, if one was made.
        func remove() {
            made.withLockedValue { made in
                if case .success(let files)? = made { files.remove() }
            }
        }
    }
}
#endif
#endif
