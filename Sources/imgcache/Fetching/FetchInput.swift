import ImgCache

/// One page or stylesheet `fetch` and `watch` read, and where the rewritten copy goes.
struct FetchInput: Sendable {
    /// How messages name it: the argument as given, or the site folder joined with the file's path.
    let name: String
    /// A file path or an http(s) URL.
    let source: String
    /// Where the rewritten file is written.
    let output: String
    /// `.page` or `.stylesheet`.
    let kind: SiteTree.FileKind
    /// What relative references resolve against: `--base-url` (joined with the file's path inside
    /// a site folder); for a URL input, the URL it is finally loaded from.
    let url: WebURL?
    /// The site folder the file belongs to: references to its other files are left as they are.
    let site: SiteTree?

    /// Whether `source` is fetched over HTTP.
    var isRemote: Bool { WebURL(source)?.isHTTP == true }

    /// A file or URL given on its own: written to `<out>/<its name>`, a stylesheet when its path
    /// ends in `.css`, resolved against `baseURL` (a URL input: against where it is loaded from).
    static func single(_ argument: String, out: String, baseURL: WebURL?) -> FetchInput {
        let isStylesheet = SiteTree.kind(ofPath: WebURL(argument)?.path ?? argument) == .stylesheet
        return FetchInput(name: argument, source: argument, output: FetchPlan.outputPath(for: argument, out: out),
                          kind: isStylesheet ? .stylesheet : .page, url: baseURL, site: nil)
    }
}

/// A file of a site folder that is neither a page nor a stylesheet: copied to `output` as it is.
struct FetchCopy: Sendable {
    let source: String
    let output: String
}
