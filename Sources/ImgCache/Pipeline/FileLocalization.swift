/// What localising one file produced: its manifest record and what became of its images.
public struct FileLocalization: Sendable {
    /// The file.
    public let input: LocalizationInput
    /// The file's record in the manifest.
    public let manifestRecord: FetchManifest.Page
    /// The rewritten file and the outcome of each image.
    public let localization: PageLocalization

    /// What happened to each distinct image, by absolute URL.
    public var outcomes: [String: DownloadOutcome] { localization.outcomes }
    /// The images that could not be localised, by URL.
    public var failures: [DownloadOutcome] { localization.failures }
    /// The encoding the file was read in.
    public var encoding: HTMLEncoding { localization.page.encoding }
    /// The absolute URLs of the stylesheets a page links.
    public var linkedStylesheets: [String] { localization.page.linkedStylesheets }
}
