#if CommandLine
import ArgumentParser
import ImgCacheCurl
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

@main
struct IMGCacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imgcache",
        abstract: "Makes a web page's images available offline.",
        discussion: """
            Exit status: 0 on success; 1 when a page or file could not be read or written; \
            2 when some images could not be localised (fetch, watch); 64 for a usage error.

            Messages on standard error show the control characters in them (escape sequences and \
            line breaks a server or page put in a header, a URL or its text) as \\xHH, their code \
            point in hexadecimal, whether standard error is a terminal or a file.
            """,
        subcommands: [FetchCommand.self, WatchCommand.self, RewriteCommand.self, ListCommand.self, CacheCommand.self, DemoCommand.self]
    )

    static func main() async {
        MallocTuning.forDownloads()
        await parseAndRun(Array(CommandLine.arguments.dropFirst()))
    }

    /// The commands that download, with libcurl by default on Linux.
    private static let downloadingCommands = [FetchCommand._commandName, WatchCommand._commandName, DemoCommand._commandName]

    /// What ArgumentParser's `main(_:)` does, except that a command line of many inputs is read
    /// in one pass (``LongInputList``) and a command without subcommands is parsed on its own.
    private static func parseAndRun(_ arguments: [String]) async {
        // Begun on the command's name, libcurl loads beside the parse, which takes about as long;
        // loaded when the transport is made, it would come after it (Benchmarks/README.md,
        // "Start-up"). Not when AsyncHTTPClient is asked for: libcurl would add 9 MB to its
        // peak. Begun here, on the cooperative pool, not before the hop to it: the load holds the
        // dynamic linker's locks until its libraries are in, and the hop (starting the pool's
        // threads) needs them.
        let curlLoading = downloadingCommands.contains(arguments.first ?? "")
            && !HTTPClientChoice.asksForAsyncHTTPClient(arguments.dropFirst()) ? CurlLibraryLoading.start() : nil
        let command: any ParsableCommand
        do {
            command = try await parse(arguments)
        } catch {
            exit(withError: error, curlLoading: curlLoading)
        }
        // Finished after the command, not before it: the load can outlast the parse, and the
        // command's first steps (its inputs, its cache folder) run beside the rest of it (about
        // 1 ms of a warm fetch, measured in turn).
        await run(command, curlLoading: curlLoading)
        curlLoading?.finish()
    }

    /// The command `arguments` name, parsed.
    private static func parse(_ arguments: [String]) async throws -> any ParsableCommand {
        guard let split = LongInputList.split(arguments, commands: listCommands) else {
            if let leaf = await parseLeafCommand(arguments) { return leaf }
            return try await asyncParseAsRoot(arguments)
        }
        // The parsed command, given the whole list of inputs.
        let command = try await asyncParseAsRoot(split.arguments)
        guard var listed = command as? any TakesInputList else { return command }
        listed.inputList = split.inputs
        // Wrong only with the whole list (`--output` with several pages): ArgumentParser reads
        // the command line again, to say so exactly as it would have.
        guard (try? listed.validate()) != nil else { return try await asyncParseAsRoot(arguments) }
        return listed
    }

    /// Runs a parsed command as `main(_:)` does, its errors reported as the whole command's.
    private static func run(_ command: any ParsableCommand, curlLoading: CurlLibraryLoading?) async {
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var command = command
                try command.run()
            }
        } catch {
            exit(withError: error, curlLoading: curlLoading)
        }
    }

    /// ArgumentParser's `exit(withError:)` once libcurl's loading is over: `exit` runs the
    /// libraries' exit handlers, and running them while libcurl's libraries were initialised
    /// crashed (`fetch --help`, one time in five).
    private static func exit(withError error: any Error, curlLoading: CurlLibraryLoading?) -> Never {
        curlLoading?.finish()
        exit(withError: error)
    }

    /// Ends the process with `status` once a command's work is done and written: the output
    /// streams are flushed, but nothing the process holds is freed (its cache index, manifest
    /// entries and plan go with the process) and the libraries' exit handlers (OpenSSL's, and
    /// those of libcurl's other dependencies) do not run. Both were work on the way to exit that
    /// nobody waits for but the caller (Benchmarks/README.md, "Start-up").
    static func exitSkippingTeardown(status: Int32) -> Never {
        fflush(nil as UnsafeMutablePointer<FILE>?)
        _exit(status)
    }

    /// The command a command line names first, parsed on its own when that command has no
    /// subcommands and the rest of the line is valid for it; nil otherwise, and for help, errors
    /// and the like, which the whole command then parses and words as usual. Parsed through the
    /// whole command, ArgumentParser also built the named command's every argument twice more
    /// (to see whether it takes all the remaining input), which was much of the parse's time.
    private static func parseLeafCommand(_ arguments: [String]) async -> (any ParsableCommand)? {
        guard let name = arguments.first else { return nil }
        let rest = Array(arguments.dropFirst())
        // Only the command itself: a request for help parses as ArgumentParser's own help
        // command, which would word the usage without `imgcache`.
        switch name {
        case FetchCommand._commandName: return (try? await FetchCommand.asyncParseAsRoot(rest)) as? FetchCommand
        case WatchCommand._commandName: return (try? await WatchCommand.asyncParseAsRoot(rest)) as? WatchCommand
        case DemoCommand._commandName: return (try? await DemoCommand.asyncParseAsRoot(rest)) as? DemoCommand
        case RewriteCommand._commandName: return (try? RewriteCommand.parseAsRoot(rest)) as? RewriteCommand
        case ListCommand._commandName: return (try? ListCommand.parseAsRoot(rest)) as? ListCommand
        default: return nil
        }
    }

    /// The commands that take a list of inputs, by the names that lead to them.
    private static var listCommands: [LongInputList.Command] {
        let top: [any TakesInputList.Type] = [RewriteCommand.self, FetchCommand.self, WatchCommand.self]
        return top.map { LongInputList.Command(path: [$0._commandName], type: $0) }
            + [LongInputList.Command(path: [CacheCommand._commandName, CacheCommand.Remove._commandName], type: CacheCommand.Remove.self)]
    }
}
#endif
