import Foundation

/// Why an image (or a page) could not be fetched, or was not attempted.
///
/// A struct rather than an enum, so that a new kind of failure is no breaking change: an app reads
/// ``description`` (one line for a person: what the manifest, `--events` and the command line's
/// messages show), and branches only on what it plausibly needs: ``httpStatus``, ``isCancelled``,
/// ``certificateProblem`` (each through retries, ``underlying``). In JSON it is written as part of a
/// ``FailedImage`` (under the name of its kind with its particulars), the one place that says how,
/// and read back from there as the same failure.
public struct DownloadFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What failed, with its particulars. Package-only: the package's own code and tests match on it.
    package let kind: Kind

    /// Wraps a kind.
    package init(_ kind: Kind) {
        self.kind = kind
    }

    /// The kinds of failure. Each is written under its own name with its particulars.
    ///
    /// Indirect, so that an outcome holding none costs a pointer's room: a run keeps every image's
    /// outcome until its manifest is written (100,000 of them when a cache is filled).
    package indirect enum Kind: Sendable, Hashable, Codable {
        /// The URL is not an http(s) URL, or names a kind of file that is not an image (a script, a page).
        case notAnImageURL
        /// Not attempted: its host is not on the allow-list (``DownloadPolicy/allowedHosts``).
        case hostNotAllowed(host: String)
        /// The download was cancelled before it ended.
        case cancelled
        /// The server answered with this status (not 2xx, nor a redirect followed).
        case httpStatus(Int)
        /// A redirect without a `Location` header.
        case redirectWithoutLocation(status: Int)
        /// A redirect to something that is not a URL (`location`: the start of what it said).
        case redirectToInvalidURL(status: Int, location: String)
        /// A redirect to a scheme other than http(s): never followed, so a page's image cannot read `file:`.
        case redirectNotHTTP(status: Int, location: String)
        /// A redirect to a host that is not on the allow-list (``DownloadPolicy/allowedHosts``): never
        /// followed, so that an open redirect on an allowed host cannot lead anywhere else.
        case redirectToHostNotAllowed(status: Int, host: String)
        /// More redirects than ``DownloadPolicy/maxRedirects`` (or a page's limit).
        case tooManyRedirects(limit: Int)
        /// A page's redirect that led nowhere usable (no `Location`, not a URL, not http(s)).
        case unusableRedirect(status: Int)
        /// The body is not an image of an accepted format.
        case notAnImage(contentType: String?, byteCount: Int)
        /// The whole exchange (attempts and redirects) took longer than allowed; `phase` says what
        /// stalled when the deadline passed, when the transport knows.
        case timedOut(after: Duration, phase: TimeoutPhase?)
        /// The transport could not deliver a response: connection, TLS certificate, refused address,
        /// size limit, malformed response. ``TransportError`` says which.
        case transport(TransportError)
        /// A retryable failure that was retried until no attempts were left.
        case retriesExhausted(last: Kind, attempts: Int)
        /// A retryable failure with no time left before the deadline to try again.
        case noTimeToRetry(last: Kind)
        /// The image came in but the cache could not store it (`revalidating`: could not record a
        /// `304 Not Modified`); `reason` is the cache's error in words.
        case storage(reason: String, revalidating: Bool)
        /// The transport threw an error that is neither a ``TransportError`` nor a `CancellationError`,
        /// which ``ImageTransport/send(_:)`` promises: `type` is the error's type
        /// (`String(reflecting:)`), `description` what it says of itself. Not retried.
        case undeclaredTransportError(type: String, description: String)
    }

    /// One line for a person: "HTTP 404", "not an image: text/html (512 bytes)", "TLS certificate
    /// of example.com refused: expired on 2021-01-01", "timed out after 30 s".
    public var description: String {
        kind.description
    }

    /// The status the server answered with, through retries (``underlying``): 404 for an image
    /// that is not there. Nil when no status was the failure (a redirect's status is not one).
    public var httpStatus: Int? {
        if case .httpStatus(let status) = kind.underlying { return status }
        return nil
    }

    /// Whether the download was cancelled before it ended, rather than failed.
    public var isCancelled: Bool {
        kind.underlying == .cancelled
    }

    /// The failure behind retries: what the last attempt met.
    public var underlying: DownloadFailure {
        DownloadFailure(kind.underlying)
    }

    /// The refused certificate, when that is what failed.
    public var certificateProblem: CertificateProblem? {
        if case .transport(.certificate(_, let problem)) = kind.underlying { return problem }
        return nil
    }
}

extension DownloadFailure.Kind: CustomStringConvertible {
    package var description: String {
        switch self {
        case .notAnImageURL: "not an http(s) image URL"
        case .hostNotAllowed(let host): "host \(host) is not on the allow-list"
        case .cancelled: "cancelled"
        case .httpStatus(let status): "HTTP \(status)"
        case .redirectWithoutLocation(let status): "HTTP \(status) without a Location"
        case .redirectToInvalidURL(_, let location): "redirect to an invalid URL: \(location)"
        case .redirectNotHTTP(_, let location): "redirect to \(location) refused: not http(s)"
        case .redirectToHostNotAllowed(_, let host): "redirect to host \(host) refused: not on the allow-list"
        case .tooManyRedirects(let limit): "more than \(limit) redirects"
        case .unusableRedirect(let status): "HTTP \(status) with no usable Location"
        case .notAnImage(let contentType, let byteCount): "not an image: \(contentType ?? "no content type") (\(byteCount) bytes)"
        case .timedOut(let after, nil): "timed out after \(after.formattedSeconds)"
        case .timedOut(let after, let phase?): "timed out after \(after.formattedSeconds) \(phase)"
        case .transport(let error): error.description
        case .retriesExhausted(let last, let attempts): "\(last) (after \(attempts) attempts)"
        case .noTimeToRetry(let last): "\(last) (no time left to retry)"
        case .storage(let reason, let revalidating): revalidating ? "could not update the cache: \(reason)" : "could not cache it: \(reason)"
        case .undeclaredTransportError(let type, let description): "\(description) (\(type), which the transport does not declare)"
        }
    }

    /// The failure behind retries: what the last attempt met.
    package var underlying: Self {
        switch self {
        case .retriesExhausted(let last, _), .noTimeToRetry(let last): last.underlying
        default: self
        }
    }
}

extension Duration {
    /// "2.5 s"
    var formattedSeconds: String {
        let seconds = Double(components.seconds) + Double(components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds)
    }
}
