import Foundation
import ImgCacheURLs
import ImgCacheMarkup

/// One page or stylesheet to localise: where it is read from, where its rewritten copy goes (if
/// anywhere), and what its relative references resolve against.
public struct LocalizationInput: Sendable {
    /// Where the file's bytes come from.
    package enum Source: Sendable, Equatable {
        /// A file on disk.
        case file(String)
        /// A page or stylesheet fetched over http(s); its final URL (after redirects) is its base.
        case url(BrowserURL)
        /// Bytes the caller has: a page an app downloaded itself, or a stylesheet.
        case bytes([UInt8])
    }

    /// How messages and the manifest name it: the argument as given, or the site folder joined
    /// with the file's path.
    public let name: String
    /// Where it is read from.
    package let source: Source
    /// Where the rewritten file is written; nil: nowhere (the result carries it,
    /// ``FileLocalization/page``).
    public let output: String?
    /// `.page` or `.stylesheet`.
    public let kind: SiteFileKind
    /// What relative references resolve against (a URL source: where it is finally loaded from).
    public let url: BrowserURL?
    /// The site folder the file belongs to: references to its other files are left as they are.
    package let site: SiteTree?
    /// For bytes, the encoding a transport declared (an HTTP `charset` label): it beats
    /// ``RewriteOptions/transportEncodingLabel``, as `OfflinePageLoader.open`'s label does.
    var transportCharset: String?

    /// Creates an input.
    package init(name: String, source: Source, output: String?, kind: SiteFileKind, url: BrowserURL?, site: SiteTree? = nil) {
        self.name = name
        self.source = source
        self.output = output
        self.kind = kind
        self.url = url
        self.site = site
    }

    /// A page or stylesheet the caller has as bytes, served from `url` (nil: relative references
    /// stay as written), written to `output` if given. It refers to the cache as the
    /// configuration's ``RewriteOptions/referenceStyle`` says, and its URLs that are not images
    /// become absolute as ``RewriteOptions/otherURLs`` says of a page written away from its origin.
    public static func bytes(_ bytes: [UInt8], url: BrowserURL?, kind: SiteFileKind = .page, output: String? = nil) -> LocalizationInput {
        LocalizationInput(name: url?.serialized ?? output ?? "", source: .bytes(bytes), output: output, kind: kind, url: url)
    }

    /// The path read, for a file source.
    package var path: String? {
        if case .file(let path) = source { return path }
        return nil
    }

    /// A file or http(s) URL given on its own: written to `<out>/<its name>` (for a URL, its last
    /// path segment, or `index.html`), a stylesheet when its path ends in `.css`, resolved against
    /// `baseURL` (a URL: against where it is loaded from).
    package static func single(_ argument: String, out: String, baseURL: BrowserURL?) -> LocalizationInput {
        let remote = BrowserURL(argument).flatMap { $0.isHTTP ? $0 : nil }
        let isStylesheet = SiteTree.kind(ofPath: BrowserURL(argument)?.path ?? argument) == .stylesheet
        return LocalizationInput(name: argument, source: remote.map(Source.url) ?? .file(argument),
                                 output: outputPath(for: argument, out: out),
                                 kind: isStylesheet ? .stylesheet : .page, url: baseURL)
    }

    /// Where a page or stylesheet given on its own is written: `<out>/<file name>`; for a URL, its
    /// last path segment (percent-decoded), or `index.html` when the path ends in `/`.
    static func outputPath(for input: String, out: String) -> String {
        let name: String
        if let url = BrowserURL(input), url.isHTTP {
            let last = url.path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
            name = last.isEmpty ? "index.html" : OutputFileName.fromURLSegment(last)
        } else {
            name = (input as NSString).lastPathComponent
        }
        return (out as NSString).appendingPathComponent(name)
    }
}

/// A file of a site folder that is neither a page nor a stylesheet: copied to `output` as it is.
package struct SiteFileCopy: Sendable {
    /// The file in the site folder.
    package let source: String
    /// Where the copy goes.
    package let output: String
}
