import Foundation

/// Runs the built `imgcache` executable, as a user would from a shell.
struct CommandRunner {
    struct Outcome: Sendable {
        let status: Int32
        let stdout: [UInt8]
        let stderr: String
    }

    /// The executable sits beside the test bundle in the build folder.
    static let executable: URL = {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 where !FileManager.default.fileExists(atPath: folder.appendingPathComponent("imgcache").path) {
            folder = folder.deletingLastPathComponent()
        }
        return folder.appendingPathComponent("imgcache")
    }()

    /// Runs the command on a Dispatch thread: waiting for a child process must not hold one of
    /// the few threads the test process's async tests (some with deadlines) run on.
    /// `environment` is set on top of this process's environment.
    static func runOffPool(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try run(arguments, in: directory, environment: environment) })
            }
        }
    }

    static func run(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]) throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read before waiting so that a large output cannot fill the pipe and block the child.
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, stdout: [UInt8](stdout), stderr: String(decoding: stderr, as: UTF8.self))
    }
}

/// A fresh folder under the system's temporary folder, removed when the test is done with it.
final class TemporaryFolder: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("imgcache-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: url.appendingPathComponent(name))
    }

    /// Every file name in the folder, hidden ones included, recursively.
    func allFiles() -> [String] {
        (FileManager.default.enumerator(atPath: url.path)?.allObjects as? [String] ?? []).sorted()
    }
}
