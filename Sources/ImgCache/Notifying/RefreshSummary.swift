/// An image that could not be fetched, as reported in a ``RefreshSummary``.
///
/// In JSON: `url`, `localName` (`""` when the URL could not be named), `reason` (the failure in
/// words, for a person or a script) and `failure` (the typed ``DownloadFailure``, which decoding
/// reads back).
public struct FailedImage: Sendable, Codable, Hashable {
    /// The image's absolute URL.
    public let url: String
    /// Its file name in the cache folder; nil when the URL could not be named.
    public let localName: String?
    /// Why it failed.
    public let failure: DownloadFailure

    /// Why it failed, in words.
    package var reason: String { failure.description }

    /// Creates a failure record.
    init(url: String, localName: String?, failure: DownloadFailure) {
        self.url = url
        self.localName = localName
        self.failure = failure
    }

    private enum CodingKeys: String, CodingKey {
        case url, localName, reason, failure
    }

    /// Encodes the URL, the local name, the reason in words and the typed failure.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url, forKey: .url)
        try container.encode(localName ?? "", forKey: .localName)
        try container.encode(reason, forKey: .reason)
        try container.encode(failure.kind, forKey: .failure)
    }

    /// Decodes what `encode(to:)` wrote: the failure is the typed one, never rebuilt from its words
    /// (which do not hold all of it). JSON without it, or with a failure this version does not
    /// know, is a `DecodingError`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        url = try container.decode(String.self, forKey: .url)
        let localName = try container.decode(String.self, forKey: .localName)
        self.localName = localName.isEmpty ? nil : localName
        failure = DownloadFailure(try container.decode(DownloadFailure.Kind.self, forKey: .failure))
    }
}

/// Why a ``RefreshNotifier`` fired a refresh.
public enum RefreshReason: String, Sendable, Codable, Hashable {
    /// No download was outstanding for the whole debounce interval (or the debounce is zero).
    case settled
    /// The maximum wait ran out while the burst was still going: a progress refresh. Downloads
    /// may still be under way (see ``RefreshSummary/underWay``); another refresh follows.
    case maxWait
    /// The caller declared that no more work will come (`RefreshNotifier.finishInput()`) and
    /// nothing was outstanding any more, so the debounce was not waited out.
    case inputFinished
}

/// What happened since the previous refresh: the payload of a refresh event.
///
/// **Counts are per burst**: each refresh reports only the images that finished after the
/// previous refresh (or, for the first refresh, after the notifier was created). Images that
/// finish without a network request (cache hits, skipped hosts, unusable URLs) never cause a
/// refresh by themselves, but they are counted in the next refresh that does fire.
public struct RefreshSummary: Sendable, Codable, Hashable {
    /// Images fetched over the network and stored.
    public var downloaded: Int
    /// Stale images the server confirmed unchanged (`304 Not Modified`).
    public var revalidated: Int
    /// Images that were already fresh in the cache (no request made).
    public var cached: Int
    /// Images not attempted because their host is not on the allow-list.
    public var skipped: Int
    /// Images that could not be fetched, with their URLs and the reasons.
    public var failed: [FailedImage]
    /// Bytes stored in the cache by the downloads in this burst (``downloaded`` images only:
    /// revalidated and cached images transferred no image bytes).
    public var bytes: Int
    /// The work the refresh waited for that was still under way when it fired: network requests
    /// not finished and pages not yet written again. 0 except for a ``RefreshReason/maxWait``
    /// progress refresh. Not ``LocalizationSession/outstandingCount``, which counts images
    /// (queued ones too) and no holds.
    public var underWay: Int
    /// Why the refresh fired.
    public var reason: RefreshReason
    /// Time from the start of the burst to the refresh, measured on the notifier's clock. A
    /// burst starts with its first event after the previous refresh, or at the previous refresh
    /// itself when that was a progress refresh with downloads still outstanding.
    public var elapsed: Duration
    /// The pages written again in this burst, by path: pages whose images named no format were
    /// rewritten once their bytes had named them. A viewer showing one reloads it (or reads it
    /// again) now.
    public var rewrittenPages: [String]

    /// Creates a summary.
    init(downloaded: Int = 0, revalidated: Int = 0, cached: Int = 0, skipped: Int = 0,
                failed: [FailedImage] = [], bytes: Int = 0, underWay: Int = 0,
                reason: RefreshReason = .settled, elapsed: Duration = .zero, rewrittenPages: [String] = []) {
        self.rewrittenPages = rewrittenPages
        self.downloaded = downloaded
        self.revalidated = revalidated
        self.cached = cached
        self.skipped = skipped
        self.failed = failed
        self.bytes = bytes
        self.underWay = underWay
        self.reason = reason
        self.elapsed = elapsed
    }

    private enum CodingKeys: String, CodingKey {
        case downloaded, revalidated, cached, skipped, failed, bytes
        // Encoded under its first name, so that summaries already written read back the same.
        case underWay = "outstanding"
        case reason, elapsed, rewrittenPages
    }

    /// The number of images that finished in this burst, whatever the outcome.
    package var finished: Int { downloaded + revalidated + cached + skipped + failed.count }

    /// ``elapsed`` in seconds.
    package var elapsedSeconds: Double {
        Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// Counts one finished image.
    mutating func add(_ outcome: DownloadOutcome) {
        switch outcome.status {
        case .downloaded:
            downloaded += 1
            bytes += outcome.byteCount
        case .revalidated:
            revalidated += 1
        case .cached:
            cached += 1
        case .skipped:
            skipped += 1
        case .failed:
            guard let failure = outcome.failure else { preconditionFailure("a failed outcome names its failure") }
            failed.append(FailedImage(url: outcome.url, localName: outcome.localName, failure: failure))
        }
    }
}
