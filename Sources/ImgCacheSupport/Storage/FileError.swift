import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An error writing or reading a file, naming the file and what went wrong.
public struct FileError: Error, CustomStringConvertible, Sendable {
    /// The file's path.
    public let path: String
    /// What went wrong, in words.
    public let reason: String

    /// A human-readable sentence.
    public var description: String { "\(path): \(reason)" }

    package init(path: String, errno code: Int32) {
        self.path = path
        self.reason = String(cString: strerror(code))
    }

    package init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}
