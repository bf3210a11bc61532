#if CommandLine
import Foundation
public import NIOSSL

/// The TLS test certificates committed under `fixtures/tls/` (made by `fixtures/tls/make-certificates.sh`).
///
/// A client that should accept the test servers trusts ``caPath`` ("imgcache test CA") and nothing
/// else; the server side picks a ``TestTLSIdentity``, of which only ``TestTLSIdentity/valid`` passes.
///
/// The files are found from this source file's location (`#filePath`), so they are there in a
/// checkout of the package, not in an installed binary.
public enum TestCertificates {
    /// The folder holding the PEM files: `<package root>/fixtures/tls`.
    public static let directory: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TLS
        .deletingLastPathComponent()  // ImgCacheTestServer
        .deletingLastPathComponent()  // Sources
        .deletingLastPathComponent()  // package root
        .appendingPathComponent("fixtures")
        .appendingPathComponent("tls")
        .path

    /// The root certificate ("imgcache test CA", PEM) that signed every identity but
    /// ``TestTLSIdentity/untrusted``: the one trust root a test client needs.
    public static var caPath: String { path("ca.pem") }

    /// The root ("imgcache untrusted CA", PEM) that signed ``TestTLSIdentity/untrusted``; kept for
    /// reference and for a test that wants to trust it on purpose.
    public static var untrustedCAPath: String { path("untrusted-ca.pem") }

    /// The test CA's certificate, to use as a client's trust root.
    public static func caCertificates() throws -> [NIOSSLCertificate] {
        try NIOSSLCertificate.fromPEMFile(caPath)
    }

    /// A file of this folder by name, e.g. `"server.pem"`.
    public static func path(_ name: String) -> String {
        directory + "/" + name
    }
}
#endif
