#if CommandLine
import NIOSSL

/// Which way a TLS handshake refused the server's certificate, read from what NIOSSL threw.
enum HandshakeRefusal: Equatable {
    /// The chain did not verify: not issued by a trusted CA, expired, not yet valid.
    case chain
    /// The chain verified but names other hosts.
    case hostname

    init?(_ error: any Error) {
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            self = .hostname
        } else if case NIOSSLError.handshakeFailed(let reason) = error,
            String(describing: reason).contains("CERTIFICATE_VERIFY_FAILED")
        {
            self = .chain
        } else {
            return nil
        }
    }
}
#endif
