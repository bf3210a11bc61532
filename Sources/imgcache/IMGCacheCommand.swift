import ArgumentParser

@main
struct IMGCacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imgcache",
        abstract: "Makes a web page's images available offline.",
        discussion: """
            Exit status: 0 on success; 1 when a page or file could not be read or written; \
            2 when some images could not be localised (fetch, watch); 64 for a usage error.
            """,
        subcommands: [FetchCommand.self, WatchCommand.self, RewriteCommand.self, ListCommand.self, CacheCommand.self, DemoCommand.self]
    )

    static func main() async {
        MallocTuning.forDownloads()
        await main(nil)
    }
}
