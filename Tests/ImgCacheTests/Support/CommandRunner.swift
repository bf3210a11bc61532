import Foundation
import Subprocess

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

    /// Runs the command and collects what it prints. Waiting for the child suspends rather than
    /// blocks, so it holds none of the few threads the test process's async tests (some with
    /// deadlines) run on. `environment` is set on top of this process's environment.
    static func runOffPool(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:],
                           executable: URL = CommandRunner.executable) async throws -> Outcome {
        let result = try await Subprocess.run(
            .at(executable.path), arguments: Arguments(arguments), environment: .inherit(updating: environment),
            workingDirectory: workingDirectory(directory?.path),
            output: .bytes(limit: collectedOutputLimit), error: .string(limit: collectedOutputLimit))
        return Outcome(status: result.terminationStatus.code, stdout: result.standardOutput, stderr: result.standardError)
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

    /// Writes the file whole, by renaming a new one over it as most editors save: written in place,
    /// a `watch` polling every 50 ms on a loaded machine could see it truncated for a poll and
    /// rewrite the page twice for one save.
    func write(_ name: String, _ text: String) throws {
        try Data(text.utf8).write(to: url.appendingPathComponent(name), options: .atomic)
    }

    /// Every file name in the folder, hidden ones included, recursively.
    func allFiles() -> [String] {
        (FileManager.default.enumerator(atPath: url.path)?.allObjects as? [String] ?? []).sorted()
    }
}
