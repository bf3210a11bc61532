import Foundation

/// The `imgcache` executable started in the background, for commands that keep running (`watch`):
/// its standard output is collected line by line as it arrives, and it can be interrupted as
/// Ctrl-C would.
final class RunningCommand: @unchecked Sendable {
    private let process = Process()
    private let lock = NSLock()
    // Guarded by `lock`.
    private var stdoutBuffer: [UInt8] = []
    private var stderrBuffer: [UInt8] = []

    struct TimedOut: Error, CustomStringConvertible {
        let description: String
    }

    init(_ arguments: [String], in directory: URL) throws {
        process.executableURL = CommandRunner.executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        out.fileHandleForReading.readabilityHandler = { [weak self] handle in self?.append(handle.availableData, toStdout: true) }
        err.fileHandleForReading.readabilityHandler = { [weak self] handle in self?.append(handle.availableData, toStdout: false) }
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    private func append(_ data: Data, toStdout: Bool) {
        lock.withLock {
            if toStdout { stdoutBuffer += data } else { stderrBuffer += data }
        }
    }

    /// Complete lines printed on standard output so far.
    var stdoutLines: [String] {
        let text = lock.withLock { String(decoding: stdoutBuffer, as: UTF8.self) }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast()  // an unfinished line, or "" after the last newline
        return lines
    }

    var stderr: String { lock.withLock { String(decoding: stderrBuffer, as: UTF8.self) } }

    /// The ndjson events printed so far.
    var events: [[String: Any]] {
        stdoutLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// Waits (polling) until `condition` holds for the events printed so far.
    func waitForEvents(timeout: Duration = .seconds(20), _ what: String,
                       until condition: ([[String: Any]]) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition(events) {
            guard ContinuousClock.now < deadline, process.isRunning else {
                throw TimedOut(description: "no \(what) (running: \(process.isRunning)); stdout:\n\(stdoutLines.joined(separator: "\n"))\nstderr:\n\(stderr)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Sends SIGINT, as Ctrl-C in a terminal does.
    func interrupt() { process.interrupt() }

    /// Waits for the process to end and returns its exit status.
    func waitForExit(timeout: Duration = .seconds(20)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                process.terminate()
                throw TimedOut(description: "the process did not exit; stderr:\n\(stderr)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        // Let the readability handlers deliver the last bytes.
        try await Task.sleep(for: .milliseconds(50))
        return process.terminationStatus
    }
}
