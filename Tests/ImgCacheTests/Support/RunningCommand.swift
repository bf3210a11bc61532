import Foundation
import Subprocess

/// The `imgcache` executable started in the background, for commands that keep running (`watch`):
/// its standard output is collected line by line as it arrives, and it can be interrupted as
/// Ctrl-C would.
final class RunningCommand: @unchecked Sendable {
    private let lock = NSLock()
    // Guarded by `lock`.
    private var stdoutBuffer: [UInt8] = []
    private var stderrBuffer: [UInt8] = []
    /// The running child, to send signals to; nil once its output has ended.
    private var execution: Execution<NoInput, SequenceOutput, SequenceOutput>?
    /// Set when the child has ended and all it printed is in the buffers.
    private var exitStatus: Int32?

    struct TimedOut: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts the command and returns once it is running.
    init(_ arguments: [String], in directory: URL) async throws {
        let executable = CommandRunner.executable.path
        // The task holds the command weakly, so that a test that fails before interrupting it
        // still ends the child (in `deinit`).
        let update: @Sendable (_ change: (RunningCommand) -> Void) -> Void = { [weak self] change in
            guard let self else { return }
            lock.withLock { change(self) }
        }
        try await withCheckedThrowingContinuation { (started: CheckedContinuation<Void, any Error>) in
            Task {
                var running = false
                do {
                    let result = try await Subprocess.run(
                        .at(executable), arguments: Arguments(arguments), workingDirectory: workingDirectory(directory.path),
                        input: .none, output: .sequence, error: .sequence
                    ) { execution in
                        update { $0.execution = execution }
                        running = true
                        started.resume()
                        async let stdout: Void = Self.collect(execution.standardOutput) { bytes in update { $0.stdoutBuffer += bytes } }
                        async let stderr: Void = Self.collect(execution.standardError) { bytes in update { $0.stderrBuffer += bytes } }
                        _ = try await (stdout, stderr)
                        update { $0.execution = nil }
                    }
                    update { $0.exitStatus = result.terminationStatus.code }
                } catch {
                    if running {
                        update { $0.exitStatus = -1; $0.stderrBuffer += Array("\(error)".utf8) }
                    } else {
                        started.resume(throwing: error)
                    }
                }
            }
        }
    }

    deinit {
        try? execution?.send(signal: .terminate)
    }

    private static func collect(_ output: SubprocessOutputSequence, into append: @Sendable ([UInt8]) -> Void) async throws {
        for try await buffer in output {
            append(buffer.withUnsafeBytes { Array($0) })
        }
    }

    private var isRunning: Bool { lock.withLock { exitStatus == nil } }

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
            guard ContinuousClock.now < deadline, isRunning else {
                throw TimedOut(description: "no \(what) (running: \(isRunning)); stdout:\n\(stdoutLines.joined(separator: "\n"))\nstderr:\n\(stderr)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Sends SIGINT, as Ctrl-C in a terminal does.
    func interrupt() {
        lock.withLock { try? execution?.send(signal: .interrupt) }
    }

    /// Waits for the process to end and returns its exit status.
    func waitForExit(timeout: Duration = .seconds(20)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let status = lock.withLock({ exitStatus }) { return status }
            guard ContinuousClock.now < deadline else {
                lock.withLock { try? execution?.send(signal: .terminate) }
                throw TimedOut(description: "the process did not exit; stderr:\n\(stderr)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
