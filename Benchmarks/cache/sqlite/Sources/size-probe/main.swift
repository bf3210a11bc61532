// The driver without GRDB (same Foundation use), to read GRDB's share of weigh-grdb's size.
import Foundation
import Shared
let path = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "/"
print(FileFingerprint(path: path) as Any, XXH64.hash(Array(path.utf8)), Date())
