import Foundation

/// What one run over pages, stylesheets and site folders reads and writes, worked out before
/// anything is written: each page and stylesheet with its output path and URL, and the site
/// files to copy. Folders are expanded here; conflicts are found here.
public struct LocalizationPlan: Sendable {
    /// Pages and stylesheets, in the order given (a folder's files sorted by path).
    public var inputs: [LocalizationInput] = []
    /// Site files copied as they are.
    public var copies: [SiteFileCopy] = []
    /// The site folders among the arguments.
    package var sites: [SiteTree] = []

    /// Why a plan cannot be made.
    public enum Problem: Error, CustomStringConvertible {
        /// Two inputs would be written to the same file, `output`.
        case outputsCollide(first: String, second: String, output: String)
        /// An input's copy would be written over the input itself.
        case overwritesItself(input: String)
        /// An input's copy would be written over another input, `overwritten`.
        case overwritesInput(input: String, overwritten: String)
        /// An input's copy would be written into the cache folder.
        case insideCacheFolder(input: String, cacheFolder: String)
        /// A site folder could not be listed.
        case unreadableFolder(path: String, reason: String)

        /// The reason, in words.
        public var description: String {
            switch self {
            case .outputsCollide(let first, let second, let output): "'\(first)' and '\(second)' would both be written to \(output)"
            case .overwritesItself(let input): "'\(input)' would be overwritten by its rewritten copy"
            case .overwritesInput(let input, let overwritten): "'\(input)' would be written over the input \(overwritten)"
            case .insideCacheFolder(let input, let cacheFolder): "'\(input)' would be written into the cache folder \(cacheFolder)"
            case .unreadableFolder(let path, let reason): "cannot read the folder \(path): \(reason)"
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
            throw .unreadableFolder(path: folder, reason: "\(error)")
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
        let writes = plan.inputs.map { ($0.name, $0.output) } + plan.copies.map { ($0.source, $0.output) }
        for (source, output) in writes {
            let target = canonical.of(output)
            if let other = firstWriter[target], other != source {
                return .outputsCollide(first: other, second: source, output: target)
            }
            firstWriter[target] = source
            if sources.contains(target) {
                return target == canonical.of(source) ? .overwritesItself(input: source) : .overwritesInput(input: source, overwritten: target)
            }
            if target.hasPrefix(cache) {
                return .insideCacheFolder(input: source, cacheFolder: cacheFolder)
            }
        }
        return nil
    }
}
