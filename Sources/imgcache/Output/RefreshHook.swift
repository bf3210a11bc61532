#if CommandLine
import Foundation
import ImgCache
import Subprocess

/// Runs `--on-refresh CMD` through the shell after each refresh, with the summary in the
/// environment (`IMGCACHE_DOWNLOADED`, `IMGCACHE_FAILED`, …).
///
/// The failed URLs are the page's text, chosen by whoever wrote it: the command gets them all in a
/// file (`IMGCACHE_FAILED_URLS_FILE`), and as many whole URLs as fit in 64 KiB in
/// `IMGCACHE_FAILED_URLS`. Linux refuses to start a program with any one environment string over
/// 128 KiB (`MAX_ARG_STRLEN`): with every URL in the variable, a page of a thousand failing
/// images kept the command from ever running.
///
/// Started with swift-subprocess, not Foundation's `Process`: on Linux, `Process.run()` reads past
/// the end of a directory entry while counting open descriptors and crashes about one run in five
/// (swift-corelibs-foundation #5472, still in Swift 6.3.1), and it sets a working directory by
/// changing the whole process's current directory around the spawn.
struct RefreshHook: Sendable {
    let command: String

    /// The most bytes of URLs (line breaks included) put in `IMGCACHE_FAILED_URLS`: half of
    /// Linux's limit for one environment string, leaving room for the rest of the environment.
    static let failedURLsLimit = 64 * 1024

    /// Runs the command and waits for it (``EventOutput`` reports nothing else meanwhile), so that
    /// one refresh's command has finished before the next refresh (or the end of the run) is reported.
    func run(_ summary: RefreshSummary) async {
        let urls = summary.failed.map(\.url)
        let file: FailedURLsFile?
        do {
            file = try FailedURLsFile(urls)
        } catch {
            // The command still runs: it has the URLs that fit in IMGCACHE_FAILED_URLS.
            Diagnostics.warn("--on-refresh: IMGCACHE_FAILED_URLS_FILE is empty: \(error)")
            file = nil
        }
        defer { file?.remove() }
        let (shown, truncated) = Self.leading(urls, within: Self.failedURLsLimit)
        let environment = Environment.inherit.updating([
            "IMGCACHE_DOWNLOADED": String(summary.downloaded),
            "IMGCACHE_REVALIDATED": String(summary.revalidated),
            "IMGCACHE_CACHED": String(summary.cached),
            "IMGCACHE_SKIPPED": String(summary.skipped),
            "IMGCACHE_FAILED": String(summary.failed.count),
            "IMGCACHE_FAILED_URLS": shown,
            "IMGCACHE_FAILED_URLS_TRUNCATED": truncated ? "1" : "0",
            "IMGCACHE_FAILED_URLS_FILE": file?.path ?? "",
            "IMGCACHE_BYTES": String(summary.bytes),
            "IMGCACHE_ELAPSED": String(format: "%.3f", summary.elapsedSeconds),
            "IMGCACHE_OUTSTANDING": String(summary.underWay),
        ])
        let outcome: Result<TerminationStatus, any Error>
        do {
            outcome = .success(try await Subprocess.run(
                .path("/bin/sh"), arguments: ["-c", command], environment: environment,
                output: .currentStandardOutput, error: .currentStandardError).terminationStatus)
        } catch {
            outcome = .failure(error)
        }
        switch outcome {
        case .success(.exited(0)):
            break
        case .success(.exited(let code)):
            Diagnostics.warn("--on-refresh command exited with status \(code)")
        case .success(.signaled(let signal)):
            Diagnostics.warn("--on-refresh command was ended by signal \(signal)")
        case .failure(let error):
            Diagnostics.warn("--on-refresh command could not be started, so it did not run: \(error)")
        }
    }

    /// The first of `urls` whose bytes, with a line break between each two, come to at most
    /// `limit`, joined; and whether any were left out.
    static func leading(_ urls: [String], within limit: Int) -> (text: String, truncated: Bool) {
        var size = 0
        var count = 0
        for url in urls {
            let next = size + (count == 0 ? 0 : 1) + url.utf8.count
            guard next <= limit else { break }
            size = next
            count += 1
        }
        return (urls[..<count].joined(separator: "\n"), count < urls.count)
    }
}
#endif
