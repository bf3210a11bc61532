import Foundation
import ImgCache

/// Runs `--on-refresh CMD` through the shell after each refresh, with the summary in the
/// environment (`IMGCACHE_DOWNLOADED`, `IMGCACHE_FAILED`, …).
struct RefreshHook: Sendable {
    let command: String

    func run(_ summary: RefreshSummary) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        var environment = ProcessInfo.processInfo.environment
        environment["IMGCACHE_DOWNLOADED"] = String(summary.downloaded)
        environment["IMGCACHE_REVALIDATED"] = String(summary.revalidated)
        environment["IMGCACHE_CACHED"] = String(summary.cached)
        environment["IMGCACHE_SKIPPED"] = String(summary.skipped)
        environment["IMGCACHE_FAILED"] = String(summary.failed.count)
        environment["IMGCACHE_FAILED_URLS"] = summary.failed.map(\.url).joined(separator: "\n")
        environment["IMGCACHE_BYTES"] = String(summary.bytes)
        environment["IMGCACHE_ELAPSED"] = String(format: "%.3f", summary.elapsedSeconds)
        environment["IMGCACHE_OUTSTANDING"] = String(summary.outstanding)
        process.environment = environment
        do {
            try process.run()
            process.waitUntilExit()
            if process.terminationStatus != 0 {
                Diagnostics.warn("--on-refresh command exited with status \(process.terminationStatus)")
            }
        } catch {
            Diagnostics.warn("--on-refresh command could not be started: \(error)")
        }
    }
}
