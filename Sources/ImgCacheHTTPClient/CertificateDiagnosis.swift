#if CommandLine
package import ImgCache
package import Foundation
import NIOConcurrencyHelpers
package import NIOCore
import NIOPosix
import NIOSSL
package import X509

/// Finds out why a server's certificate was refused, so that the failure names the problem
/// ("expired on 2021-01-01", "issued by 'CN=Corp CA', which is not a trusted CA") rather than
/// BoringSSL's `CERTIFICATE_VERIFY_FAILED`, which says the same for every cause.
///
/// The refusal itself stays BoringSSL's (through AsyncHTTPClient): this only looks afterwards. It
/// opens one more connection to the server, takes the certificate chain from the handshake without
/// trusting it, and reads the chain's dates, names and issuer. One look per server for the life of
/// the transport, shared by every image that failed on it; a look that cannot be made (the server
/// went away, the request went through a proxy tunnel) leaves a plain "not trusted" reason.
package final class CertificateDiagnosis: Sendable {
    private let group: any EventLoopGroup
    private let looks = NIOLockedValueBox<[String: Task<CertificateProblem, Never>]>([:])

    package init(group: any EventLoopGroup) {
        self.group = group
    }

    /// Why `host:port`'s certificate was refused. `hostnameMismatch`: the chain was trusted but is
    /// not for `host` (NIOSSL tells that case apart itself).
    package func problem(host: String, port: Int, hostnameMismatch: Bool) async -> CertificateProblem {
        let key = "\(host):\(port):\(hostnameMismatch)"
        let task = looks.withLockedValue { looks in
            if let existing = looks[key] { return existing }
            let group = self.group
            let task = Task {
                let chain = try? await Self.peerChain(host: host, port: port, group: group)
                return Self.explain(chain ?? [], host: host, hostnameMismatch: hostnameMismatch, now: Date())
            }
            looks[key] = task
            return task
        }
        return await task.value
    }

    /// Why a certificate seen through a proxy was refused, said without a second look: from here
    /// the server may present another certificate than through the proxy (which may re-sign TLS
    /// with its own CA).
    package static func throughProxy(hostnameMismatch: Bool) -> CertificateProblem {
        hostnameMismatch
            ? CertificateProblem(.otherHost, "issued for another host name (through the proxy)")
            : CertificateProblem(.unverified, "not trusted, or out of date (through the proxy; a proxy that re-signs TLS needs its CA trusted)")
    }

    /// Whether a refused chain can hide a host name mismatch. With the system's trust roots on
    /// Darwin, NIOSSL verifies through `SecTrust` with a host name policy, which reports a
    /// certificate for another host as a chain failure (`CERTIFICATE_VERIFY_FAILED`), not as
    /// `failedToValidateHostname`; BoringSSL on Linux tells them apart.
    #if canImport(Darwin)
    package static let chainRefusalMayBeHostname = true
    #else
    package static let chainRefusalMayBeHostname = false
    #endif

    /// Explains a refused chain (leaf first) for `host`.
    /// - Parameter namesMayExplainChain: look at the leaf's names even when the refusal was of the
    ///   chain (``chainRefusalMayBeHostname``; a parameter so that Linux tests run what Darwin does).
    package static func explain(_ chain: [Certificate], host: String, hostnameMismatch: Bool, now: Date,
                        namesMayExplainChain: Bool = chainRefusalMayBeHostname) -> CertificateProblem {
        for certificate in chain {
            let whose = certificate == chain.first ? "" : " (\(name(certificate.subject)) in its chain)"
            if certificate.notValidAfter < now {
                return CertificateProblem(.outsideValidity, "expired on \(day(certificate.notValidAfter))\(whose)")
            }
            if certificate.notValidBefore > now {
                return CertificateProblem(.outsideValidity, "not valid before \(day(certificate.notValidBefore))\(whose)")
            }
        }
        guard let leaf = chain.first, let top = chain.last else {
            return hostnameMismatch
                ? CertificateProblem(.otherHost, "issued for another host name")
                : CertificateProblem(.unverified, "not trusted (chain or dates refused)")
        }
        if hostnameMismatch || (namesMayExplainChain && !covers(leaf, host: host)) {
            let names = subjectNames(leaf)
            return CertificateProblem(.otherHost, names.isEmpty
                ? "names no host (no subject alternative name)"
                : "issued for \(names.joined(separator: ", ")), not \(host)")
        }
        if top.issuer == top.subject {
            return CertificateProblem(.untrustedIssuer, chain.count == 1
                ? "self-signed (\(name(leaf.subject))), not issued by a trusted CA"
                : "issued by \(name(top.subject)), which is not a trusted CA")
        }
        return CertificateProblem(.untrustedIssuer, "issued by \(name(top.issuer)), which is not a trusted CA")
    }

    /// Whether a certificate's names include `host`: a DNS name equal to it (case aside), a
    /// wildcard `*.` standing for its first label alone, or its IP address.
    static func covers(_ certificate: Certificate, host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]."))
        return subjectNames(certificate).contains { name in
            let name = name.lowercased()
            if name == host { return true }
            guard name.hasPrefix("*."), let dot = host.firstIndex(of: ".") else { return false }
            return host[host.index(after: dot)...] == name.dropFirst(2) && host[..<dot].isEmpty == false
        }
    }

    /// The DNS names and IP addresses a certificate is for.
    private static func subjectNames(_ certificate: Certificate) -> [String] {
        guard let names = try? certificate.extensions.subjectAlternativeNames else { return [] }
        return names.compactMap { name in
            switch name {
            case .dnsName(let dns): return dns
            case .ipAddress(let octets):
                let bytes = Array(octets.bytes)
                if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
                if bytes.count == 16 {
                    return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
                        .joined(separator: ":")
                }
                return nil
            default: return nil
            }
        }
    }

    /// `'CN=Corp CA, O=Corp'` as written in the certificate.
    private static func name(_ distinguishedName: DistinguishedName) -> String {
        "'\(distinguishedName)'"
    }

    private static func day(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: date)
    }

    /// The chain the server presents, taken during a handshake that is then abandoned.
    private static func peerChain(host: String, port: Int, group: any EventLoopGroup) async throws -> [Certificate] {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .none
        let context = try NIOSSLContext(configuration: configuration)
        let loop = group.next()
        let chainPromise = loop.makePromise(of: [NIOSSLCertificate].self)
        let settled = NIOLockedValueBox(false)
        @Sendable func settle(_ result: Result<[NIOSSLCertificate], any Error>) {
            let first = settled.withLockedValue { done in
                defer { done = true }
                return !done
            }
            if first { chainPromise.completeWith(result) }
        }
        // An IP address is not a valid SNI name.
        let serverName = host.contains(":") || host.allSatisfy({ $0.isNumber || $0 == "." }) ? nil : host
        let channel = try await ClientBootstrap(group: loop)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = try NIOSSLClientHandler(
                        context: context, serverHostname: serverName,
                        customVerificationCallback: { certificates, verdict in
                            settle(.success(certificates))
                            verdict.succeed(.failed)  // seen what was needed; end the handshake
                        })
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
            .connect(host: host, port: port)
            .get()
        channel.closeFuture.whenComplete { _ in settle(.failure(ChannelError.alreadyClosed)) }
        let timeout = loop.scheduleTask(in: .seconds(5)) { settle(.failure(ChannelError.connectTimeout(.seconds(5)))) }
        defer {
            timeout.cancel()
            channel.close(promise: nil)
        }
        let certificates = try await chainPromise.futureResult.get()
        return try certificates.map { try Certificate(derEncoded: try $0.toDERBytes()) }
    }
}
#endif
