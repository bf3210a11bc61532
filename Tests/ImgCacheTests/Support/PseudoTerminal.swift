#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Subprocess
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// Runs the built `imgcache` with its standard output on a pseudo-terminal, as when a person runs
/// it in a terminal window (`isatty` holds), and collects what it wrote there. The terminal is
/// raw, so the bytes read are the bytes written (no `\n` turned into `\r\n`).
enum PseudoTerminal {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    struct Outcome: Sendable {
        let status: Int32
        /// What the command wrote on the terminal.
        let terminal: [UInt8]
        let stderr: String
    }

    private typealias OnDescriptor = @convention(c) (Int32) -> Int32
    private typealias TerminalName = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?

    /// A function of the C library looked up by name: Glibc's module leaves out the
    /// pseudo-terminal functions (they are X/Open's, declared only with `_XOPEN_SOURCE`).
    private static func libc<Function>(_ name: String, _ type: Function.Type) throws -> Function {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), name) else { throw Failure(description: "no \(name) in the C library") }
        return unsafeBitCast(symbol, to: type)
    }

    static func run(_ arguments: [String], in directory: URL) async throws -> Outcome {
        let openTerminal = try libc("posix_openpt", OnDescriptor.self)
        let grant = try libc("grantpt", OnDescriptor.self)
        let unlock = try libc("unlockpt", OnDescriptor.self)
        let secondaryName = try libc("ptsname", TerminalName.self)
        let primary = openTerminal(O_RDWR | O_NOCTTY)
        guard primary >= 0 else { throw Failure(description: "posix_openpt: \(String(cString: strerror(errno)))") }
        defer { close(primary) }
        guard grant(primary) == 0, unlock(primary) == 0, let name = secondaryName(primary) else {
            throw Failure(description: "grantpt/unlockpt/ptsname: \(String(cString: strerror(errno)))")
        }
        let secondary = open(name, O_RDWR | O_NOCTTY)
        guard secondary >= 0 else { throw Failure(description: "open \(String(cString: name)): \(String(cString: strerror(errno)))") }
        var attributes = termios()
        tcgetattr(secondary, &attributes)
        cfmakeraw(&attributes)
        tcsetattr(secondary, TCSANOW, &attributes)

        // The child's writes wait in the terminal's buffer (far larger than a test's output) until
        // they are read here, after it has ended.
        let result = try await Subprocess.run(
            .at(CommandRunner.executable.path), arguments: Arguments(arguments), workingDirectory: workingDirectory(directory.path),
            output: .fileDescriptor(FileDescriptor(rawValue: secondary), closeAfterSpawningProcess: true),
            error: .string(limit: collectedOutputLimit))

        _ = fcntl(primary, F_SETFL, fcntl(primary, F_GETFL) | O_NONBLOCK)
        var terminal: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(primary, $0.baseAddress, $0.count) }
            // Nothing left: EAGAIN, or EIO on Linux once no descriptor of the terminal is open.
            guard count > 0 else { break }
            terminal += buffer[..<count]
        }
        return Outcome(status: result.terminationStatus.code, terminal: terminal, stderr: result.standardError)
    }
}
