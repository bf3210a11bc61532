import ImgCache
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A certificate folder as OpenSSL searches it (`CURLOPT_CAPATH`): files named after the hash of
/// their certificates' subject (`openssl rehash`'s `5ad8a5d6.0`), read only when a chain needs one.
///
/// Why it matters: OpenSSL 3.0 takes about 40 ms of CPU to read a 140-certificate bundle
/// (`CURLOPT_CAINFO`; its decoders cost about 0.3 ms per certificate), on the path to the first
/// TLS connection of every run, and libcurl reads the system's bundle whenever it is given no
/// other. When the system's folder already holds every certificate of the system's bundle, the
/// folder alone trusts the same CAs, at the cost of the one or two files a chain needs.
struct HashedCertificateFolder {
    let path: String
    /// The certificates of the folder's hashed files; nil when one cannot be read or holds
    /// anything but certificates, or the folder cannot be listed.
    private let certificates: Set<[UInt8]>?

    /// Reads the folder's hashed files (about 1 ms for Debian's 140), without parsing them.
    init(path: String) {
        self.path = path
        certificates = Self.readCertificates(inFolder: path)
    }

    /// Whether every certificate of the PEM `bundle` is in one of the folder's hashed files, byte
    /// for byte, so that trusting the folder alone trusts what the bundle and the folder together
    /// did. False, to be safe, when the bundle or a hashed file holds anything but certificates
    /// (trust settings of a `TRUSTED CERTIFICATE`, say), a block is cut short, a file cannot be
    /// read, or the bundle holds no certificate: the caller then reads the bundle as before.
    ///
    /// Content is compared, not names: a certificate appended to the bundle by hand is in no
    /// hashed file, and keeps the bundle in use.
    func holdsEveryCertificate(of bundle: String) -> Bool {
        guard let certificates, let bytes = try? AtomicFile.read(bundle),
              let wanted = Self.certificates(inPEM: bytes), !wanted.isEmpty else { return false }
        return wanted.isSubset(of: certificates)
    }

    private static func readCertificates(inFolder path: String) -> Set<[UInt8]>? {
        guard let directory = opendir(path) else { return nil }
        defer { closedir(directory) }
        var found = Set<[UInt8]>()
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard isHashedName(name) else { continue }
            guard let bytes = try? AtomicFile.read(path + "/" + name),
                  let certificates = certificates(inPEM: bytes) else { return nil }
            found.formUnion(certificates)
        }
        return found
    }

    /// `openssl rehash`'s names: eight lowercase hex digits, a dot, a number (`.r0` and the like
    /// are revocation lists, which libcurl does not check).
    static func isHashedName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count >= 10, bytes[8] == UInt8(ascii: ".") else { return false }
        let isHex = bytes[..<8].allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
        return isHex && bytes[9...].allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// The base64 text of each `CERTIFICATE` block of a PEM file, without its line breaks; nil when
    /// the file holds a block of another kind or one without its end line. Text between blocks
    /// (the comments some bundles carry) is skipped, as OpenSSL skips it.
    static func certificates(inPEM bytes: [UInt8]) -> Set<[UInt8]>? {
        let begin = Array("-----BEGIN ".utf8)
        let certificateBegin = Array("-----BEGIN CERTIFICATE-----".utf8)
        let certificateEnd = Array("-----END CERTIFICATE-----".utf8)
        var blocks = Set<[UInt8]>()
        var index = 0
        while let start = bytes.offset(of: begin, from: index) {
            guard bytes[start...].starts(with: certificateBegin) else { return nil }
            let bodyStart = start + certificateBegin.count
            guard let end = bytes.offset(of: certificateEnd, from: bodyStart) else { return nil }
            blocks.insert(bytes[bodyStart..<end].filter { ![0x20, 0x09, 0x0D, 0x0A].contains($0) })
            index = end + certificateEnd.count
        }
        return blocks
    }
}

extension [UInt8] {
    /// Where `pattern` first starts at or after `from`.
    fileprivate func offset(of pattern: [UInt8], from: Int) -> Int? {
        guard let first = pattern.first, count >= pattern.count else { return nil }
        var index = from
        let last = count - pattern.count
        while index <= last {
            guard let candidate = self[index...last].firstIndex(of: first) else { return nil }
            if self[candidate..<(candidate + pattern.count)].elementsEqual(pattern) { return candidate }
            index = candidate + 1
        }
        return nil
    }
}
