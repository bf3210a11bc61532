import ArgumentParser

@main
struct IMGCacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imgcache",
        abstract: "Makes a web page's images available offline.",
        discussion: """
            Exit status: 0 on success, 1 when a page or output could not be read or written, \
            64 for a usage error.
            """,
        subcommands: [RewriteCommand.self, ListCommand.self]
    )
}
