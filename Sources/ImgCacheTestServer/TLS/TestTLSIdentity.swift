#if CommandLine
public import NIOSSL

/// A certificate and its private key for a test server to present, valid or broken in one
/// particular way. All but ``untrusted`` are issued by the test CA (``TestCertificates/caPath``).
public struct TestTLSIdentity: Sendable, Hashable, CustomStringConvertible {
    /// A short name for messages, e.g. `"expired"`.
    public let name: String
    /// The leaf certificate (PEM); the chain the server sends is this certificate alone.
    public let certificatePath: String
    /// Its private key (PEM, EC P-256).
    public let privateKeyPath: String

    /// The ``name``.
    public var description: String { name }

    /// Creates an identity from PEM files, for a certificate not among the fixtures.
    public init(name: String, certificatePath: String, privateKeyPath: String) {
        self.name = name
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
    }

    /// For `localhost` and `127.0.0.1`, valid from 2025 to 2125: a client trusting the test CA accepts it.
    public static let valid = fixture("valid", "server")

    /// For `localhost` and `127.0.0.1`, but valid only from 2020-01-01 to 2021-01-01.
    public static let expired = fixture("expired", "expired")

    /// Valid, but only for the host name `other.example`: wrong for `127.0.0.1` and `localhost`.
    public static let wrongHost = fixture("wrong-host", "wrong-host")

    /// For `localhost` and `127.0.0.1`, valid, but issued by "imgcache untrusted CA"
    /// (``TestCertificates/untrustedCAPath``), which the test CA file does not contain.
    public static let untrusted = fixture("untrusted", "untrusted")

    /// The certificate chain to present.
    public func certificateChain() throws -> [NIOSSLCertificate] {
        try NIOSSLCertificate.fromPEMFile(certificatePath)
    }

    /// The private key matching the certificate.
    public func privateKey() throws -> NIOSSLPrivateKey {
        try NIOSSLPrivateKey(file: privateKeyPath, format: .pem)
    }

    /// A server configuration presenting this identity, with no ALPN protocols set.
    public func serverConfiguration() throws -> TLSConfiguration {
        TLSConfiguration.makeServerConfiguration(
            certificateChain: try certificateChain().map { .certificate($0) },
            privateKey: .privateKey(try privateKey())
        )
    }

    private static func fixture(_ name: String, _ file: String) -> TestTLSIdentity {
        TestTLSIdentity(
            name: name,
            certificatePath: TestCertificates.path("\(file).pem"),
            privateKeyPath: TestCertificates.path("\(file)-key.pem")
        )
    }
}
#endif
