import ArgumentParser
#if canImport(CCurl)
import ImgCacheHTTPClient
#endif

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
        #if canImport(CCurl)
        if downloads(CommandLine.arguments) {
            CurlTransport.startLoading(checkingSystemCAs: CommandLine.arguments.contains { $0.contains("https://") })
        }
        #endif
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let split = LongInputList.split(arguments, commands: listCommands) else {
            await main(arguments)
            return
        }
        // What `main(_:)` does, with the whole list of inputs given to the parsed command.
        do {
            var command = try await asyncParseAsRoot(split.arguments)
            if var listed = command as? any TakesInputList {
                listed.inputList = split.inputs
                // Wrong only with the whole list (`--output` with several pages): ArgumentParser
                // reads the command line again, to say so exactly as it would have.
                guard (try? listed.validate()) != nil else {
                    await main(arguments)
                    return
                }
                command = listed
            }
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }

    /// The commands that take a list of inputs, by the names that lead to them.
    private static var listCommands: [LongInputList.Command] {
        let top: [any TakesInputList.Type] = [RewriteCommand.self, FetchCommand.self, WatchCommand.self]
        return top.map { LongInputList.Command(path: [$0._commandName], type: $0) }
            + [LongInputList.Command(path: [CacheCommand._commandName, CacheCommand.Remove._commandName], type: CacheCommand.Remove.self)]
    }

    /// Whether the command line runs a command that downloads, over libcurl (its default on
    /// Linux): read before the arguments are parsed, so only by the subcommand's name.
    private static func downloads(_ arguments: [String]) -> Bool {
        guard let subcommand = arguments.dropFirst().first else { return false }
        let downloading: [any ParsableCommand.Type] = [FetchCommand.self, WatchCommand.self, DemoCommand.self]
        return downloading.contains { $0.configuration.commandName == subcommand }
            && !arguments.contains(HTTPClientChoice.asyncHTTPClient.rawValue)
    }
}
