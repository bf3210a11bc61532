/// One page or stylesheet made to work offline: the rewritten file and what happened to each image.
public struct PageLocalization: Sendable {
    /// The rewritten file (in build mode, only cached images are rewritten).
    public let page: RewriteResult
    /// One outcome per distinct image URL, keyed by absolute URL.
    public let outcomes: [String: DownloadOutcome]

    /// The images that could not be localised, by URL.
    public var failures: [DownloadOutcome] {
        DownloadOutcome.failures(in: outcomes)
    }
}

/// What kind of file a ``LocalizationSession`` is given.
public enum LocalizedDocument: Sendable, Equatable {
    /// An HTML page.
    case page
    /// A stylesheet (`.css`); `referringEncoding` is the encoding of a page that links it, for a
    /// file with neither a byte order mark nor `@charset`.
    case stylesheet(referringEncoding: HTMLEncoding?)
}
