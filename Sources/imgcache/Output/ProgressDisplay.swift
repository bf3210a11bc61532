#if CommandLine
import Foundation
import ImgCache

/// Shows fetch progress on standard error: a bar redrawn in place on a terminal, plain lines at
/// most once a second otherwise (logs stay readable).
final class ProgressDisplay: @unchecked Sendable {
    // Guarded by `lock`.
    private var total = 0
    private var done = 0
    private var failed = 0
    private var bytes = 0
    private var lastPlainLine = Date.distantPast
    private var drewBar = false
    private let lock = NSLock()
    private let isTerminal = isatty(STDERR_FILENO) != 0

    func addImages(_ count: Int) {
        lock.withLock { total += count }
        render(force: false)
    }

    func record(_ event: ImageEvent) {
        guard case .finished(let outcome) = event else {
            if case .failed = event { lock.withLock { done += 1; failed += 1 }; render(force: false) }
            return
        }
        lock.withLock {
            done += 1
            bytes += outcome.status == .downloaded ? outcome.byteCount : 0
        }
        render(force: false)
    }

    /// Ends the display: the final state on its own line.
    func finish() {
        render(force: true)
        if isTerminal, lock.withLock({ drewBar }) { try? FileHandle.standardError.write(contentsOf: Data("\n".utf8)) }
    }

    private func render(force: Bool) {
        let line: String? = lock.withLock {
            let text = "\(done)/\(total) images, \(Self.megabytes(bytes)) downloaded\(failed > 0 ? ", \(failed) failed" : "")"
            if isTerminal {
                let width = 30
                let filled = total > 0 ? min(width, done * width / total) : 0
                drewBar = true
                return "\r[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] " + text + "\u{1B}[K"
            }
            let now = Date()
            guard force || now.timeIntervalSince(lastPlainLine) >= 1 else { return nil }
            lastPlainLine = now
            return "imgcache: " + text + "\n"
        }
        if let line { try? FileHandle.standardError.write(contentsOf: Data(line.utf8)) }
    }

    private static func megabytes(_ bytes: Int) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }
}
#endif
