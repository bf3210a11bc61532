import Dispatch
import Foundation
import Subprocess

/// A child process started from synchronous test code, which the test waits for later (as
/// `Process.run()` and then `waitUntilExit()` did). Its standard output and error are collected
/// together.
///
/// Its initializer and ``waitUntilExit()`` block the calling thread (call them inside `offPool`).
/// The task that runs the child runs on a queue of its own, not on the cooperative pool: while the
/// suite's async tests kept the pool busy, swift-subprocess's body (which tells the initializer
/// the child is running) first ran more than a second after the child started, and a test that
/// had to act while the child slept for a second saw it already done.
final class BackgroundProcess: @unchecked Sendable {
    private let started = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    // Guarded by `lock`.
    private var outcome: Result<(status: Int32, output: String), any Error>?

    /// Starts `executable` and returns once it is running; throws when it cannot be started.
    /// `environment` is set on top of this process's environment.
    init(_ executable: String, _ arguments: [String], in directory: String? = nil,
         environment: [String: String] = [:]) throws {
        let run: @Sendable () async -> Void = { [self] in
            do {
                let result = try await Subprocess.run(
                    .at(executable), arguments: Arguments(arguments), environment: .inherit(updating: environment),
                    workingDirectory: workingDirectory(directory), input: .none,
                    output: .string(limit: collectedOutputLimit), error: .combinedWithOutput
                ) { _ in self.started.signal() }
                lock.withLock { outcome = .success((result.terminationStatus.code, result.standardOutput)) }
            } catch {
                lock.withLock { outcome = .failure(error) }
                started.signal()
            }
            exited.signal()
        }
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
            Task(executorPreference: QueueTaskExecutor(), operation: run)
        } else {
            Task(operation: run)
        }
        started.wait()
        if case .failure(let error)? = lock.withLock({ outcome }) { throw error }
    }

    /// Waits for the child to end.
    func waitUntilExit() {
        exited.wait()
        exited.signal()  // for the next caller
    }

    /// The exit status (or the signal that ended the child); -1 if collecting its output failed.
    /// Call after ``waitUntilExit()``.
    var terminationStatus: Int32 {
        lock.withLock { (try? outcome?.get())?.status ?? -1 }
    }

    /// Everything the child printed on standard output and error. Call after ``waitUntilExit()``.
    var output: String {
        lock.withLock {
            switch outcome {
            case .success(let result)?: result.output
            case .failure(let error)?: "(output not collected: \(error))"
            case nil: ""
            }
        }
    }
}

/// Runs a task's jobs on a serial Dispatch queue of its own.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
private final class QueueTaskExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "imgcache-tests.background-process")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
