import Subprocess
#if canImport(System)
import System
#else
import SystemPackage
#endif

// The tests start child processes with swift-subprocess rather than Foundation's Process, which
// on Linux crashed the test run about one time in five (swift-corelibs-foundation #5472) and
// changes the whole test process's current directory to give a child its working directory.

extension Executable {
    /// The executable at `path`.
    static func at(_ path: String) -> Self { .path(FilePath(path)) }
}

/// The folder at `path`, as swift-subprocess takes a working directory.
func workingDirectory(_ path: String?) -> FilePath? { path.map { FilePath($0) } }

extension Environment {
    /// This process's environment with `overrides` set on top.
    static func inherit(updating overrides: [String: String]) -> Self {
        var keyed: [Key: String?] = [:]
        for (name, value) in overrides {
            guard let key = Key(rawValue: name) else { preconditionFailure("not an environment variable name: \(name)") }
            keyed[key] = value
        }
        return .inherit.updating(keyed)
    }
}

extension TerminationStatus {
    /// The exit status, or the signal number for a child a signal ended (as `Process.terminationStatus`).
    var code: Int32 {
        switch self {
        case .exited(let code): code
        case .signaled(let signal): signal
        }
    }
}

/// A cap on collected output far above anything a test prints.
let collectedOutputLimit = 1 << 30
