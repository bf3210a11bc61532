import Foundation
import ImgCache
import Subprocess

/// Runs `--on-refresh CMD` through the shell after each refresh, with the summary in the
/// environment (`IMGCACHE_DOWNLOADED`, `IMGCACHE_FAILED`, …).
///
/// Started with swift-subprocess, not Foundation's `Process`: on Linux, `Process.run()` reads past
/// the end of a directory entry while counting open descriptors and crashes about one run in five
/// (swift-corelibs-foundation #5472, still in Swift 6.3.1), and it sets a working directory by
/// changing the whole process's current directory around the spawn.
struct RefreshHook: Sendable {
    let command: String

    /// Runs the command and waits for it (``EventOutput`` reports nothing else meanwhile), so that
    /// one refresh's command has finished before the next refresh (or the end of the run) is reported.
    func run(_ summary: RefreshSummary) async {
        let environment = Environment.inherit.updating([
            "IMGCACHE_DOWNLOADED": String(summary.downloaded),
            "IMGCACHE_REVALIDATED": String(summary.revalidated),
            "IMGCACHE_CACHED": String(summary.cached),
            "IMGCACHE_SKIPPED": String(summary.skipped),
            "IMGCACHE_FAILED": String(summary.failed.count),
            "IMGCACHE_FAILED_URLS": summary.failed.map(\.url).joined(separator: "\n"),
            "IMGCACHE_BYTES": String(summary.bytes),
            "IMGCACHE_ELAPSED": String(format: "%.3f", summary.elapsedSeconds),
            "IMGCACHE_OUTSTANDING": String(summary.outstanding),
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
            Diagnostics.warn("--on-refresh command could not be started: \(error)")
        }
    }
}
