import Foundation
import ImgCache

/// What one `fetch` (or `watch`) run reads and writes, worked out from its arguments before
/// anything is written: each page and stylesheet with its output path and URL, and the site
/// files to copy. Folders are expanded here; conflicts are found here.
struct FetchPlan: Sendable {
    /// Pages and stylesheets, in the order given (a folder's files sorted by path).
    var inputs: [FetchInput] = []
    /// Site files copied as they are.
    var copies: [FetchCopy] = []
    /// The site folders among the arguments.
    var sites: [SiteTree] = []

    /// Why the arguments cannot be run.
    enum Problem: Error, CustomStringConvertible {
        /// Two outputs collide, one would overwrite an input, or one would land in the cache folder.
        case conflict(String)
        /// A folder could not be listed.
        case unreadable(String)

        var description: String {
            switch self {
            case .conflict(let text), .unreadable(let text): text
            }
        }
    }

    /// - Parameters:
    ///   - arguments: files, folders and http(s) URLs, as given.
    ///   - copiesAssets: whether a folder's other files are copied into `out`.
    init(arguments: [String], out: String, cacheFolder: String, baseURL: WebURL?, copiesAssets: Bool) throws(Problem) {
        for argument in arguments {
            var isDirectory: ObjCBool = false
            if WebURL(argument)?.isHTTP != true, FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory),
               isDirectory.boolValue {
                try addSite(argument, out: out, cacheFolder: cacheFolder, baseURL: baseURL, copiesAssets: copiesAssets)
            } else {
                inputs.append(.single(argument, out: out, baseURL: baseURL))
            }
        }
        if let conflict = Self.conflict(in: self, cacheFolder: cacheFolder) { throw .conflict(conflict) }
    }

    private mutating func addSite(_ folder: String, out: String, cacheFolder: String, baseURL: WebURL?, copiesAssets: Bool) throws(Problem) {
        let site: SiteTree
        do {
            site = try SiteTree(root: folder, baseURL: baseURL, excluding: [out, cacheFolder])
        } catch {
            throw .unreadable("cannot read the folder \(folder): \(error)")
        }
        sites.append(site)
        for file in site.files {
            let source = site.path(of: file)
            let output = (out as NSString).appendingPathComponent(file.relativePath)
            switch file.kind {
            case .page, .stylesheet:
                inputs.append(FetchInput(name: source, source: source, output: output, kind: file.kind,
                                         url: site.url(of: file), site: site))
            case .asset:
                if copiesAssets { copies.append(FetchCopy(source: source, output: output)) }
            }
        }
    }

    /// Where a page or stylesheet given on its own is written: `<out>/<file name>`; for a URL, its
    /// last path segment (percent-decoded), or `index.html` when the path ends in `/`.
    static func outputPath(for input: String, out: String) -> String {
        let name: String
        if let url = WebURL(input), url.isHTTP {
            let last = url.path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
            name = last.isEmpty ? "index.html" : PercentEncodingForNames.decoded(last)
        } else {
            name = (input as NSString).lastPathComponent
        }
        return (out as NSString).appendingPathComponent(name)
    }

    /// A reason to refuse the plan before anything is written: two inputs would be written to the
    /// same file, one would overwrite an input (itself included), or one would be written into the
    /// cache folder.
    static func conflict(in plan: FetchPlan, cacheFolder: String) -> String? {
        var sources: Set<String> = []
        for input in plan.inputs where !input.isRemote { sources.insert(canonicalPath(input.source)) }
        for copy in plan.copies { sources.insert(canonicalPath(copy.source)) }
        let cache = canonicalPath(cacheFolder) + "/"
        var firstWriter: [String: String] = [:]
        let writes = plan.inputs.map { ($0.source, $0.output) } + plan.copies.map { ($0.source, $0.output) }
        for (source, output) in writes {
            let target = canonicalPath(output)
            if let other = firstWriter[target], other != source {
                return "'\(other)' and '\(source)' would both be written to \(target); fetch them into different --out folders"
            }
            firstWriter[target] = source
            if sources.contains(target) {
                return target == canonicalPath(source)
                    ? "'\(source)' would be overwritten by its rewritten copy; choose another --out folder"
                    : "'\(source)' would be written over the input \(target); choose another --out folder"
            }
            if target.hasPrefix(cache) {
                return "'\(source)' would be written into the cache folder \(cacheFolder); choose another --cache-dir"
            }
        }
        return nil
    }

    private static func canonicalPath(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }
}

/// A URL path segment made into a file name: percent-escapes decoded, and nothing that could
/// leave the output folder or fail to be created there: `/` and NUL become `_`, `.` and `..`
/// become `index.html`, and a name longer than a file name may be (255 bytes) is shortened,
/// keeping its extension, with a digest of the whole so that two long names stay apart.
enum PercentEncodingForNames {
    static let maxNameBytes = 255

    static func decoded(_ segment: String) -> String {
        let decoded = segment.removingPercentEncoding ?? segment
        let safe = decoded.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "\0", with: "_")
        if safe == "." || safe == ".." || safe.isEmpty { return "index.html" }
        return safe.utf8.count > maxNameBytes ? shortened(safe) : safe
    }

    private static func shortened(_ name: String) -> String {
        let ext = (name as NSString).pathExtension
        let digest = CacheContentDigest.sha256Hex(Array(name.utf8)).prefix(16)
        let suffix = "-\(digest)" + (ext.isEmpty || ext.utf8.count > 16 ? "" : "." + ext)
        return name.prefix(maxUTF8Bytes: maxNameBytes - suffix.utf8.count) + suffix
    }
}
