import Foundation

/// Writes messages for a person to standard error. Every write of the command goes through
/// `write(contentsOf:)`, which throws where `write(_:)` raises an Objective-C exception on Darwin
/// when the reader has gone (`imgcache list | head`).
enum Diagnostics {
    static func warn(_ message: String) {
        try? FileHandle.standardError.write(contentsOf: Data("imgcache: warning: \(message)\n".utf8))
    }

    static func error(_ message: String) {
        try? FileHandle.standardError.write(contentsOf: Data("imgcache: error: \(message)\n".utf8))
    }

    static func note(_ message: String) {
        try? FileHandle.standardError.write(contentsOf: Data("\(message)\n".utf8))
    }
}
