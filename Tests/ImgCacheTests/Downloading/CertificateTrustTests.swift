import Foundation
import ImgCacheHTTPClient
import ImgCacheTestServer
import Testing

/// Which CAs the AsyncHTTPClient transport trusts, and the errors for CA files it cannot use.
@Suite("Certificate trust")
struct CertificateTrustTests {
    @Test func environmentVariablesReplaceTheSystemRootsAsInOpenSSL() {
        let trust = CertificateTrust.fromEnvironment(
            adding: ["/corp/ca.pem"],
            environment: ["SSL_CERT_FILE": "/etc/custom.pem", "SSL_CERT_DIR": "/etc/certs-a:/etc/certs-b"])
        #expect(trust.roots == ["/etc/custom.pem", "/etc/certs-a", "/etc/certs-b"])
        #expect(trust.additionalCAFiles == ["/corp/ca.pem"])
        #expect(CertificateTrust.fromEnvironment(environment: [:]) == .system)
        #expect(CertificateTrust.fromEnvironment(environment: ["SSL_CERT_FILE": ""]) == .system)
    }

    @Test func aMissingCAFileIsNamedWithTheProblem() throws {
        let error = #expect(throws: CertificateTrustError.self) {
            try CertificateTrust(additionalCAFiles: ["/nonexistent/ca.pem"]).validate()
        }
        #expect(error?.description == "/nonexistent/ca.pem: no such file")
    }

    @Test func aFileWithoutACertificateIsRefused() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("not-a-cert.pem")
        try Data("<html>not a certificate</html>".utf8).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: CertificateTrustError.self) {
            try AsyncHTTPClientTransport(trust: CertificateTrust(additionalCAFiles: [path]))
        }
        #expect(error?.path == path)
        #expect(error?.problem.contains("no PEM certificate") == true)
    }

    @Test func aMissingRootFolderIsRefused() {
        let error = #expect(throws: CertificateTrustError.self) {
            try CertificateTrust(roots: ["/nonexistent/certs"]).validate()
        }
        #expect(error?.problem == "no such file or folder")
    }

    @Test func theTestCAIsAccepted() throws {
        try CertificateTrust(additionalCAFiles: [TestCertificates.caPath]).validate()
        try CertificateTrust(roots: [TestCertificates.caPath, TestCertificates.directory]).validate()
    }
}
