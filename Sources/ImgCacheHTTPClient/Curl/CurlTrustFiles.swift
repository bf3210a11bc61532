#if canImport(CCurl)
import CCurl
import Foundation
import ImgCache

/// A ``CertificateTrust`` as libcurl takes it: one CA file (`CURLOPT_CAINFO`) and one hashed
/// folder (`CURLOPT_CAPATH`).
///
/// libcurl reads a single CA file, so when the trust names several (the system's bundle and
/// `--cacert`'s, say) they are joined into a private temporary file, deleted by ``remove()``. A
/// file rather than `CURLOPT_CAINFO_BLOB`: libcurl caches the store it builds from a file for
/// later connections (`CURLOPT_CA_CACHE_TIMEOUT`), and parsing a 140-certificate bundle for each
/// connection is slow under OpenSSL 3.
struct CurlTrustFiles: Sendable {
    /// The CA file, or nil: libcurl's default bundle when `replacesDefaults` is false, none when true.
    let file: String?
    /// The CA folder, or nil: as for `file`.
    let folder: String?
    /// Whether `file` and `folder` replace libcurl's defaults (`SSL_CERT_FILE`, `SSL_CERT_DIR`),
    /// rather than `file` adding to them.
    let replacesDefaults: Bool
    /// Whether `file` is a temporary file of ours, to delete.
    private let isTemporary: Bool

    /// Reads `trust`'s files and folders (reporting any that cannot be used, as ``CertificateTrust/validate()`` does).
    init(_ trust: CertificateTrust) throws {
        try trust.validate()
        guard trust != .system else {
            (file, folder, replacesDefaults, isTemporary) = (nil, nil, false, false)
            return
        }
        let roots = try trust.rootFilesAndFolders()
        var files = roots.files
        let folders = roots.folders
        replacesDefaults = !trust.roots.isEmpty
        if !replacesDefaults, let bundle = imgcache_curl_default_ca_file() {
            files.append(String(cString: bundle))
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
            isTemporary = false
            return
        }
        var joined = Data()
        for source in sources {
            guard let contents = try? Data(contentsOf: source) else { continue }
            joined.append(contents)
            joined.append(0x0A)
        }
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("imgcache-ca-\(getpid())-\(UUID().uuidString).pem").path
        guard FileManager.default.createFile(atPath: path, contents: joined, attributes: [.posixPermissions: 0o600]) else {
            throw CertificateTrustError(path: path, problem: "the joined CA file could not be written")
        }
        file = path
        isTemporary = true
    }

    /// Sets a transfer's CA options.
    func apply(to easy: UnsafeMutableRawPointer) {
        if replacesDefaults {
            // nil turns the default off: SSL_CERT_FILE alone trusts that file, not the system's folder too.
            set(easy, CURLOPT_CAINFO, file)
            set(easy, CURLOPT_CAPATH, folder)
        } else if let file {
            set(easy, CURLOPT_CAINFO, file)
        }
    }

    /// Deletes the joined file, if there is one.
    func remove() {
        if isTemporary, let file { try? FileManager.default.removeItem(atPath: file) }
    }

    private func set(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, _ value: String?) {
        if let value {
            _ = value.withCString { imgcache_curl_easy_setopt_pointer(easy, option, $0) }
        } else {
            _ = imgcache_curl_easy_setopt_pointer(easy, option, nil)
        }
    }
}
#endif
