import ImgCacheMarkup
/// What localising one page or stylesheet produced: its manifest record and what became of its
/// images. A file the session wrote is not kept (a site's run holds one of these per file until
/// it ends); one it did not write is, in ``page``.
public struct FileLocalization: Sendable {
    /// The file.
    public let input: LocalizationInput
    /// The file's record in the manifest.
    package let manifestRecord: FetchManifest.Page
    /// The rewritten file, for an input with no ``LocalizationInput/output`` (in build mode, only
    /// the images in the cache are rewritten); nil for one the session wrote.
    public let page: RewriteResult?
    /// What happened to each distinct image, by absolute URL.
    public let outcomes: [String: DownloadOutcome]
    /// The encoding the file was read in.
    public let encoding: HTMLEncoding
    /// The absolute URLs of the stylesheets a page links.
    package let linkedStylesheets: [String]
    /// What rewriting the file noticed.
    public let warnings: [RewriteWarning]

    init(input: LocalizationInput, manifestRecord: FetchManifest.Page, page: RewriteResult, outcomes: [String: DownloadOutcome]) {
        self.input = input
        self.manifestRecord = manifestRecord
        self.page = input.output == nil ? page : nil
        self.outcomes = outcomes
        encoding = page.encoding
        linkedStylesheets = page.linkedStylesheets
        warnings = page.warnings
    }

    /// The images that could not be localised, by URL.
    public var failures: [DownloadOutcome] {
        DownloadOutcome.failures(in: outcomes)
    }
}
