import Foundation
import ImgCacheURLs
import ImgCacheMarkup

/// What one run over pages, stylesheets and site folders reads and writes, worked out before
/// anything is written: each page and stylesheet with its output path and URL, and the site
/// files to copy. Folders are expanded here; conflicts are found here.
public struct LocalizationPlan: Sendable {
    /// Pages and stylesheets, in the order given (a folder's files sorted by path).
    public var inputs: [LocalizationInput] = []
    /// Site files copied as they are.
    package var copies: [SiteFileCopy] = []
    /// The site folders among the arguments.
    package var sites: [SiteTree] = []

    /// Why a plan cannot be made: its ``kind``, the input it is about, and the other path
    /// involved. A struct rather than an enum, so that kinds can be added without breaking a
    /// `switch` in an app (as AsyncHTTPClient's `HTTPClientError`).
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// What kind of problem it is.
        public struct Kind: Sendable, Hashable {
            fileprivate let name: String

            /// Two inputs would be written to the same file (``Problem/path``); the other input
            /// is ``Problem/otherInput``.
            public static let outputsCollide = Kind(name: "outputsCollide")
            /// An input's copy would be written over the input itself.
            public static let overwritesItself = Kind(name: "overwritesItself")
            /// An input's copy would be written over another input (``Problem/path``).
            public static let overwritesInput = Kind(name: "overwritesInput")
            /// An input's copy would be written into the cache folder (``Problem/path``).
            public static let insideCacheFolder = Kind(name: "insideCacheFolder")
            /// A site folder (the input) could not be listed.
            public static let unreadableFolder = Kind(name: "unreadableFolder")
        }

        /// What kind of problem it is.
        public let kind: Kind
        /// The input (a file, folder or URL as given) the problem is about.
        public let input: String
        /// The other path involved: the output two inputs share, the input overwritten, or the
        /// cache folder; nil for the others.
        public let path: String?
        /// For ``Kind/outputsCollide``, the input written there first.
        public let otherInput: String?
        /// For ``Kind/unreadableFolder``, why it could not be listed.
        public let reason: String?

        init(_ kind: Kind, input: String, path: String? = nil, otherInput: String? = nil, reason: String? = nil) {
            self.kind = kind
            self.input = input
            self.path = path
            self.otherInput = otherInput
            self.reason = reason
        }

        /// The problem, in words.
        public var description: String {
            switch kind {
            case .outputsCollide: "'\(otherInput ?? "")' and '\(input)' would both be written to \(path ?? "")"
            case .overwritesItself: "'\(input)' would be overwritten by its rewritten copy"
            case .overwritesInput: "'\(input)' would be written over the input \(path ?? "")"
            case .insideCacheFolder: "'\(input)' would be written into the cache folder \(path ?? "")"
            case .unreadableFolder: "cannot read the folder \(input): \(reason ?? "")"
            default: "'\(input)': \(kind.name)"
            }
        }
    }

    /// Plans a run.
    /// - Parameters:
    ///   - arguments: files, folders and http(s) URLs, as given. A folder is a site: its pages
    ///     and stylesheets are localised into the same place under `out`, with the URL `baseURL`
    ///     joined with their path in the folder.
    ///   - out: the output folder.
    ///   - cacheFolder: the cache folder, which no output may land in.
    ///   - baseURL: where a file or site folder is served from.
    ///   - copiesAssets: whether a folder's other files are copied into `out`.
    /// - Throws: ``Problem``.
    public init(arguments: [String], out: String, cacheFolder: String, baseURL: BrowserURL?, copiesAssets: Bool) throws(Problem) {
        for argument in arguments {
            var isDirectory: ObjCBool = false
            if BrowserURL(argument)?.isHTTP != true, FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory),
               isDirectory.boolValue {
                try addSite(argument, out: out, cacheFolder: cacheFolder, baseURL: baseURL, copiesAssets: copiesAssets)
            } else {
                inputs.append(.single(argument, out: out, baseURL: baseURL))
            }
        }
        if let conflict = Self.conflict(in: self, cacheFolder: cacheFolder) { throw conflict }
    }

    private mutating func addSite(_ folder: String, out: String, cacheFolder: String, baseURL: BrowserURL?, copiesAssets: Bool) throws(Problem) {
        let site: SiteTree
        do {
            site = try SiteTree(root: folder, baseURL: baseURL, excluding: [out, cacheFolder])
        } catch {
            throw Problem(.unreadableFolder, input: folder, reason: "\(error)")
        }
        sites.append(site)
        for file in site.files {
            let source = site.path(of: file)
            let output = (out as NSString).appendingPathComponent(file.relativePath)
            switch file.kind {
            case .page, .stylesheet:
                inputs.append(LocalizationInput(name: source, source: .file(source), output: output, kind: file.kind,
                                                url: site.url(of: file), site: site))
            case .asset:
                if copiesAssets { copies.append(SiteFileCopy(source: source, output: output)) }
            }
        }
    }

    /// A reason to refuse the plan before anything is written: two inputs would be written to the
    /// same file, one would overwrite an input (itself included), or one would be written into the
    /// cache folder.
    static func conflict(in plan: LocalizationPlan, cacheFolder: String) -> Problem? {
        var canonical = CanonicalPaths()
        var sources: Set<String> = []
        for input in plan.inputs { if let path = input.path { sources.insert(canonical.of(path)) } }
        for copy in plan.copies { sources.insert(canonical.of(copy.source)) }
        let cache = canonical.of(cacheFolder) + "/"
        var firstWriter: [String: String] = [:]
        let writes = plan.inputs.compactMap { input in input.output.map { (input.name, $0) } } + plan.copies.map { ($0.source, $0.output) }
        for (source, output) in writes {
            let target = canonical.of(output)
            if let other = firstWriter[target], other != source {
                return Problem(.outputsCollide, input: source, path: target, otherInput: other)
            }
            firstWriter[target] = source
            if sources.contains(target) {
                return target == canonical.of(source) ? Problem(.overwritesItself, input: source)
                    : Problem(.overwritesInput, input: source, path: target)
            }
            if target.hasPrefix(cache) {
                return Problem(.insideCacheFolder, input: source, path: cacheFolder)
            }
        }
        return nil
    }
}
