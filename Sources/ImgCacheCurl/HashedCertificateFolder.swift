#if CommandLine
#if os(Linux) && canImport(CCurl)
import ImgCache
import ImgCacheHTTPClient
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
/// Why it matters: OpenSSL 3.0 is slow to read a 140-certificate bundle (`CURLOPT_CAINFO`; its
/// decoders are costly for each certificate), on the path to the first TLS connection of every run
/// (measured: Benchmarks/HISTORY.md, "Fetching"), and libcurl reads the system's bundle whenever it
/// is given no other. When the system's folder already holds every certificate of the system's
/// bundle, the folder alone trusts the same CAs, at the cost of the one or two files a chain needs.
struct HashedCertificateFolder {
    let path: String
    /// The certificates of the folder's hashed files; nil when one cannot be read or holds
    /// anything but certificates, or the folder cannot be listed.
    private let certificates: Set<CertificateText>?

    /// Reads the folder's hashed files without parsing them: cheap beside parsing the bundle.
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

    private static func readCertificates(inFolder path: String) -> Set<CertificateText>? {
        guard let directory = opendir(path) else { return nil }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if isHashedName(name) { names.append(name) }
        }
        closedir(directory)
        // OpenSSL reads `hash.0`, `hash.1`, … and stops at the first number missing: a file
        // after a gap is never read, so its certificates do not count.
        let present = Set(names)
        var found = Set<CertificateText>()
        for name in names {
            // A number past the count of names has a gap before it.
            guard let number = Int(name.dropFirst(9)), number < names.count,
                  (0..<number).allSatisfy({ present.contains("\(name.prefix(8)).\($0)") }) else { continue }
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
    static func certificates(inPEM bytes: [UInt8]) -> Set<CertificateText>? {
        bytes.withUnsafeBytes { text -> Set<CertificateText>? in
            var blocks = Set<CertificateText>()
            var index = 0
            while let start = offset(of: "-----BEGIN ", in: text, from: index) {
                let begin: StaticString = "-----BEGIN CERTIFICATE-----"
                guard offset(of: begin, in: text, from: start) == start else { return nil }
                let bodyStart = start + begin.utf8CodeUnitCount
                let end: StaticString = "-----END CERTIFICATE-----"
                guard let bodyEnd = offset(of: end, in: text, from: bodyStart) else { return nil }
                blocks.insert(CertificateText(base64: withoutBlanks(UnsafeRawBufferPointer(rebasing: text[bodyStart..<bodyEnd]))))
                index = bodyEnd + end.utf8CodeUnitCount
            }
            return blocks
        }
    }

    /// `text` without spaces, tabs and line breaks, copied a line at a time.
    private static func withoutBlanks(_ text: UnsafeRawBufferPointer) -> [UInt8] {
        func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        var result: [UInt8] = []
        result.reserveCapacity(text.count)
        var start = 0
        while start < text.count {
            let lineEnd = text[start...].firstIndex(of: 0x0A) ?? text.count
            var end = lineEnd
            while end > start, isBlank(text[end - 1]) { end -= 1 }
            while start < end, isBlank(text[start]) { start += 1 }
            let line = UnsafeRawBufferPointer(rebasing: text[start..<end])
            if line.contains(where: isBlank) {
                result += line.filter { !isBlank($0) }
            } else {
                result += line
            }
            start = lineEnd + 1
        }
        return result
    }

    /// Where `pattern` first starts in `text` at or after `from` (`memchr` for its first byte, then
    /// `memcmp`: the bundle is 200 KB).
    private static func offset(of pattern: StaticString, in text: UnsafeRawBufferPointer, from: Int) -> Int? {
        guard let base = text.baseAddress else { return nil }
        let length = pattern.utf8CodeUnitCount
        var index = from
        while index + length <= text.count {
            guard let found = memchr(base + index, Int32(pattern.utf8Start.pointee), text.count - length + 1 - index) else { return nil }
            let candidate = base.distance(to: UnsafeRawPointer(found))
            if memcmp(found, pattern.utf8Start, length) == 0 { return candidate }
            index = candidate + 1
        }
        return nil
    }
}

/// A certificate's base64 text, compared byte for byte, hashed by its length and last 48 bytes
/// (the signature's, as good as random): hashing all of every certificate was most of the
/// folder's reading time.
struct CertificateText: Hashable {
    let base64: [UInt8]

    func hash(into hasher: inout Hasher) {
        hasher.combine(base64.count)
        base64.withUnsafeBytes { hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: $0.suffix(48))) }
    }
}
#endif
#endif
