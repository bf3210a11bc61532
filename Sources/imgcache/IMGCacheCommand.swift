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
        tuneMalloc()
        await main(nil)
    }

    /// Two glibc malloc settings that cut a 2,000-image fetch's peak memory by about 4 MB, at no
    /// measurable cost in time:
    /// - at most two heaps (arenas): glibc gives each thread that allocates its own, up to 8 per
    ///   core, and the event loops, the cooperative pool and the file queues would each keep one;
    /// - blocks of 64 KB and more from `mmap`, handed back when freed: by default glibc raises that
    ///   threshold each time such a block is freed, so response buffers end up scattered over the
    ///   heap, which then cannot shrink.
    /// `mallopt` is looked up at run time because Swift's Glibc module does not include `<malloc.h>`.
    private static func tuneMalloc() {
        #if canImport(Glibc)
        typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
        let (arenaMax, mmapThreshold): (Int32, Int32) = (-8, -3)  // M_ARENA_MAX, M_MMAP_THRESHOLD
        guard let symbol = dlsym(nil, "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: MallOpt.self)
        _ = mallopt(arenaMax, 2)
        _ = mallopt(mmapThreshold, 64 * 1024)
        #endif
    }
}
