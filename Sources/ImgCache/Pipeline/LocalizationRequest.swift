import ImgCacheURLs
import ImgCacheMarkup
/// One document's localisation as a ``LocalizationSession`` runs it: the input, the mode, what
/// the caller is told along the way, and whether a viewer shows the page while its images arrive.
/// Every way in (one input, a plan's files, a page an ``OfflinePageLoader`` opens) is one of these,
/// so that live mode is written once.
struct LocalizationRequest: Sendable {
    /// The page or stylesheet, where it comes from and where its copy goes.
    var input: LocalizationInput
    /// `.build` or `.live`.
    var mode: FetchMode
    /// For a stylesheet that declares no encoding and is not ASCII: the encoding of a page linking
    /// it (asked only then, since finding it may mean waiting).
    var referringEncoding: (@Sendable (BrowserURL?) async -> HTMLEncoding?)?
    /// Told how many distinct images the document has, before any is fetched.
    var imagesFound: (@Sendable (Int) -> Void)?
    /// Receives the rewritten document each time it is final for the mode (written to the
    /// input's output first, when it has one).
    var pageReady: (@Sendable (RewriteResult) async throws -> Void)?
    /// A page an ``OfflinePageLoader`` opened, shown while its images arrive: a request for one of
    /// its images waits for the download (`ImageArrivals`), the refresh lists the page when it is
    /// written again, and a second write that fails leaves the first one in place instead of
    /// failing the page, whose first write the viewer already shows.
    var isShownWhileLoading = false

    init(_ input: LocalizationInput, mode: FetchMode,
         referringEncoding: (@Sendable (BrowserURL?) async -> HTMLEncoding?)? = nil,
         imagesFound: (@Sendable (Int) -> Void)? = nil,
         pageReady: (@Sendable (RewriteResult) async throws -> Void)? = nil) {
        self.input = input
        self.mode = mode
        self.referringEncoding = referringEncoding
        self.imagesFound = imagesFound
        self.pageReady = pageReady
    }

    /// What the session's run of a request gives back.
    struct Outcome: Sendable {
        /// The file's result, as the public entry returns it.
        var file: FileLocalization
        /// Every fetch's outcome in the order fetched (the document's images, then those devices
        /// took instead of failed ones), as the loader's `downloads` task gives them.
        var fetched: [DownloadOutcome]
    }
}
