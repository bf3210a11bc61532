#if CommandLine
import Foundation

/// The closing words of `imgcache demo`: how to look at the result.
struct DemoInstructions: Sendable {
    /// The output folder, as given.
    let out: String

    /// A few lines for the person who ran the demo.
    var text: String {
        let folder = URL(fileURLWithPath: out).standardizedFileURL
        let page = folder.appendingPathComponent("index.html")
        #if os(macOS)
        let opener = "open"
        #else
        let opener = "xdg-open"
        #endif
        let shown = (out as NSString).appendingPathComponent("index.html")
        return """

            Open the offline copy (it works with the network off):
              \(opener) \(Self.shellQuoted(shown))
              or paste \(page.absoluteString) into a browser
            Its images live in \((out as NSString).appendingPathComponent("images"))/, named SHA-256(url).ext; \
            what happened to each is in \((out as NSString).appendingPathComponent("imgcache-manifest.json")).
            """
    }

    private static func shellQuoted(_ path: String) -> String {
        let safe = path.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "/._-+@:,".unicodeScalars.contains($0) }
        return safe ? path : "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
#endif
