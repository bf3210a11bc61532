#if CommandLine
import Foundation

/// A folder of static files for `imgcache demo` to serve: an `index.html` and whatever it uses.
struct DemoSite: Sendable {
    /// One file of the site.
    struct File: Sendable {
        /// The path inside the site folder, with `/` separators, e.g. `images/hero.jpg`.
        let path: String
        /// The file's bytes.
        let bytes: [UInt8]
        /// The `Content-Type` it is served with, from its extension.
        let contentType: String
    }

    /// Where the site comes from: its folder, absolute, or the words for the bundled site.
    let origin: String
    /// Every regular file under the folder (hidden ones excluded), sorted by path.
    let files: [File]

    /// Why a site folder cannot be used.
    struct Unusable: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads every file under `folder`.
    /// - Throws: `Unusable` when the folder has no `index.html` or a file cannot be read.
    init(folder: String) throws {
        let root = URL(fileURLWithPath: folder).standardizedFileURL
        origin = root.path
        let manager = FileManager.default
        guard manager.fileExists(atPath: root.appendingPathComponent("index.html").path) else {
            throw Unusable(description: "\(root.path) has no index.html")
        }
        var files: [File] = []
        for case let relative as String in manager.enumerator(atPath: root.path)?.allObjects ?? [] {
            let components = relative.split(separator: "/")
            guard !components.contains(where: { $0.hasPrefix(".") }) else { continue }
            let url = root.appendingPathComponent(relative)
            var isFolder: ObjCBool = false
            guard manager.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            guard let data = manager.contents(atPath: url.path) else {
                throw Unusable(description: "cannot read \(url.path)")
            }
            files.append(File(path: relative, bytes: [UInt8](data), contentType: Self.contentType(for: relative)))
        }
        self.files = files.sorted { $0.path < $1.path }
    }

    private init(origin: String, files: [File]) {
        self.origin = origin
        self.files = files
    }

    /// The site that travels inside the binary (`fixtures/site` of its sources, see
    /// ``embeddedFiles``), so that the demo runs wherever the binary is.
    /// - Throws: `Unusable` naming a file whose embedded bytes do not decode.
    static func bundled() throws -> DemoSite {
        let files = try embeddedFiles.map { file in
            guard let bytes = Data(base64Encoded: file.base64, options: .ignoreUnknownCharacters) else {
                throw Unusable(description: "the bundled \(file.path) does not decode (run Scripts/embed-demo-site.py)")
            }
            return File(path: file.path, bytes: [UInt8](bytes), contentType: contentType(for: file.path))
        }
        return DemoSite(origin: "the bundled site", files: files)
    }

    /// A `Content-Type` for a file name, by its extension.
    static func contentType(for path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "html", "htm": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "json": "application/json"
        case "txt": "text/plain; charset=utf-8"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "avif": "image/avif"
        case "svg": "image/svg+xml"
        case "ico": "image/x-icon"
        default: "application/octet-stream"
        }
    }
}
#endif
