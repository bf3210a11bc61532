import Foundation

/// Writes messages for a person to standard error.
enum Diagnostics {
    static func warn(_ message: String) {
        FileHandle.standardError.write(Data("imgcache: warning: \(message)\n".utf8))
    }

    static func error(_ message: String) {
        FileHandle.standardError.write(Data("imgcache: error: \(message)\n".utf8))
    }

    static func note(_ message: String) {
        FileHandle.standardError.write(Data("\(message)\n".utf8))
    }
}
