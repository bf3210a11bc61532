/// Why a server's TLS certificate was refused: what kind of problem, and the particulars in words.
public struct CertificateProblem: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The kinds of problem, for a program to act on.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The chain does not lead to a trusted CA (a company's or a test server's CA, a
        /// self-signed certificate): trusting that CA is the remedy.
        case untrustedIssuer
        /// Expired, or not valid yet.
        case outsideValidity
        /// Valid, but for other host names.
        case otherHost
        /// Refused, for a reason the transport could not tell apart.
        case unverified
    }

    /// What kind of problem.
    public let kind: Kind
    /// The particulars: "expired on 2021-01-01", "issued by 'CN=Corp CA', which is not a trusted CA".
    public let description: String

    /// Creates a problem.
    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    /// Whether trusting another CA (`--cacert`, `CertificateTrust`) could make it go away.
    package var mayBeFixedByTrustingItsCA: Bool {
        kind == .untrustedIssuer || kind == .unverified
    }
}
