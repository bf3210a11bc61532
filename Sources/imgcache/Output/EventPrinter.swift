#if CommandLine
import Foundation
import ImgCache

/// Writes every image event as one JSON object per line on standard output (`--events ndjson`),
/// for scripts that watch a fetch: `page` when a rewritten page is written, then `started`,
/// `finished`, `failed` and `refresh` as the images come in.
struct EventPrinter: Sendable {
    /// Maps absolute URLs to the path the page uses for them.
    let localPath: @Sendable (_ localName: String) -> String

    func print(_ event: ImageEvent) {
        var object: [String: Any]
        switch event {
        case .started(let url, let localName):
            object = ["event": "started", "url": url]
            // An image whose URL names no format has no name until its bytes are in.
            if let localName { object["localPath"] = localPath(localName) }
        case .finished(let outcome), .failed(let outcome):
            object = ["event": outcome.status == .failed ? "failed" : "finished", "url": outcome.url,
                      // An image its URL could not name gets the bare folder or prefix, as it always has.
                      "localPath": localPath(outcome.localName ?? ""), "status": outcome.status.rawValue, "bytes": outcome.byteCount]
            if let type = outcome.contentType { object["contentType"] = type }
            if let failure = outcome.failure { object["error"] = failure.description }
        case .refresh(let summary):
            object = ["event": "refresh", "downloaded": summary.downloaded, "revalidated": summary.revalidated,
                      "cached": summary.cached, "skipped": summary.skipped, "bytes": summary.bytes,
                      "elapsed": summary.elapsedSeconds, "reason": summary.reason.rawValue,
                      "failed": summary.failed.map { ["url": $0.url, "reason": $0.reason] }]
            if !summary.rewrittenPages.isEmpty { object["rewrittenPages"] = summary.rewrittenPages }
        }
        write(object)
    }

    /// A page was (re)written: where, and how many of its image references point into the cache.
    func printPage(input: String, output: String, references: Int, rewritten: Int) {
        write(["event": "page", "input": input, "output": output, "references": references, "rewritten": rewritten])
    }

    private func write(_ object: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        try? FileHandle.standardOutput.write(contentsOf: data + Data([0x0A]))
    }
}
#endif
