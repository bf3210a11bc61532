#if CommandLine
import Foundation

/// The failed URLs of a refresh, one a line, in a file of their own for the `--on-refresh`
/// command (`IMGCACHE_FAILED_URLS_FILE`): however many there are, where an environment variable
/// holds at most 128 KiB on Linux.
///
/// The file sits in a folder of its own under the temporary folder (`TMPDIR`), readable by this
/// user only, and is removed with it once the command has ended: not beside the output, which a
/// hook may be copying or deploying while it runs.
struct FailedURLsFile {
    /// The file's path.
    let path: String
    private let folder: String

    /// Why the file could not be written.
    struct WriteError: Error, CustomStringConvertible {
        let description: String
    }

    /// Writes `urls`, each followed by a line break (serialised URLs hold none of their own).
    init(_ urls: [String]) throws(WriteError) {
        let temporary = FileManager.default.temporaryDirectory.path
        var template = Array((temporary as NSString).appendingPathComponent("imgcache-hook-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else {
            throw WriteError(description: "cannot create a folder in \(temporary): \(String(cString: strerror(errno)))")
        }
        folder = String(cString: created)
        path = (folder as NSString).appendingPathComponent("failed-urls.txt")
        var text = ""
        text.reserveCapacity(urls.reduce(0) { $0 + $1.utf8.count + 1 })
        for url in urls { text += url + "\n" }
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            remove()
            throw WriteError(description: "cannot write \(path): \(error.localizedDescription)")
        }
    }

    /// Removes the file and its folder.
    func remove() {
        try? FileManager.default.removeItem(atPath: folder)
    }
}
#endif
