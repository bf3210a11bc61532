#if CommandLine
import ArgumentParser
import Foundation
import ImgCache

struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspects and maintains a cache folder.",
        subcommands: [Stats.self, Prune.self, Remove.self, Clear.self]
    )

    struct Location: ParsableArguments {
        @Option(name: .customLong("cache-dir"), help: "The cache folder.")
        var cacheDirectory: String = "imgcache-out/images"

        @Option(name: .customLong("max-age"), help: "Seconds after which an entry is expired (for prune).")
        var maxAge: Double?

        func open() throws -> ImageCacheStore {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: cacheDirectory, isDirectory: &isFolder), isFolder.boolValue else {
                Diagnostics.error("\(cacheDirectory): no such cache folder")
                throw ExitCode.failure
            }
            do {
                return try ImageCacheStore(directory: cacheDirectory, policy: CachePolicy(maxAge: maxAge))
            } catch {
                Diagnostics.error("\(cacheDirectory): \(error)")
                throw ExitCode.failure
            }
        }
    }

    // Each subcommand names itself: ArgumentParser otherwise derives the name from the type's
    // name through reflection, at every start of the tool whatever command runs.
    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "stats", abstract: "Prints entries, bytes, oldest and newest.")
        @OptionGroup var location: Location
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            let stats = try location.open().stats()
            let formatter = ISO8601DateFormatter()
            let oldest = stats.oldestFetchedAt.map(formatter.string(from:))
            let newest = stats.newestFetchedAt.map(formatter.string(from:))
            if json {
                let object: [String: Any] = ["entries": stats.entryCount, "bytes": stats.totalBytes,
                                             "oldest": oldest ?? NSNull(), "newest": newest ?? NSNull()]
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                print(String(decoding: data, as: UTF8.self))
            } else {
                print("entries: \(stats.entryCount)\nbytes: \(stats.totalBytes)\noldest: \(oldest ?? "-")\nnewest: \(newest ?? "-")")
            }
        }
    }

    struct Prune: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "prune", abstract: "Removes expired entries (--max-age), damaged entries and stale temporary files.")
        @OptionGroup var location: Location

        func run() throws {
            let removed = try location.open().prune()
            print("removed \(removed) entries")
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Removes the cached images of these URLs.")
        @Argument(help: "Absolute image URLs.") var urls: [String]
        @OptionGroup var location: Location

        func validate() throws {
            if urls.isEmpty { throw ValidationError("Give at least one URL to remove.") }
            if let bad = urls.first(where: { BrowserURL($0) == nil }) { throw ValidationError("'\(bad)' is not an absolute URL.") }
        }

        func run() throws {
            let store = try location.open()
            var missing = false
            for url in urls {
                if try store.remove(BrowserURL(url)!) {
                    print("removed \(url)")
                } else {
                    Diagnostics.warn("\(url) was not in the cache")
                    missing = true
                }
            }
            if missing { throw ExitCode(2) }
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "clear", abstract: "Removes every entry, keeping the folder.")
        @OptionGroup var location: Location

        func run() throws {
            let removed = try location.open().clear()
            print("removed \(removed) entries")
        }
    }
}

extension CacheCommand.Remove: TakesInputList {
    var inputList: [String] {
        get { urls }
        set { urls = newValue }
    }
}
#endif
