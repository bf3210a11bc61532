/// What localising one file produced: its manifest record and what became of its images. It does
/// not keep the rewritten file, which is written and let go: a site's run holds one of these per
/// file until it ends.
public struct FileLocalization: Sendable {
    /// The file.
    public let input: LocalizationInput
    /// The file's record in the manifest.
    public let manifestRecord: FetchManifest.Page
    /// What happened to each distinct image, by absolute URL.
    public let outcomes: [String: DownloadOutcome]
    /// The encoding the file was read in.
    public let encoding: HTMLEncoding
    /// The absolute URLs of the stylesheets a page links.
    public let linkedStylesheets: [String]
    /// What rewriting the file noticed.
    public let warnings: [RewriteWarning]

    init(input: LocalizationInput, manifestRecord: FetchManifest.Page, localization: PageLocalization) {
        self.input = input
        self.manifestRecord = manifestRecord
        outcomes = localization.outcomes
        encoding = localization.page.encoding
        linkedStylesheets = localization.page.linkedStylesheets
        warnings = localization.page.warnings
    }

    /// The images that could not be localised, by URL.
    public var failures: [DownloadOutcome] {
        DownloadOutcome.failures(in: outcomes)
    }
}
