#if CommandLine
#if canImport(Glibc)
import Glibc
#endif

/// glibc malloc settings suited to what a command holds in memory. `mallopt` is looked up at run
/// time because Swift's Glibc module does not include `<malloc.h>`.
enum MallocTuning {
    /// Two settings that cut a large fetch's peak memory, at no measurable cost in time:
    /// - at most two heaps (arenas): glibc gives each thread that allocates its own, up to 8 per
    ///   core, and the event loops, the cooperative pool and the file queues would each keep one;
    /// - blocks of 64 KB and more from `mmap`, handed back when freed: by default glibc raises that
    ///   threshold each time such a block is freed, so response buffers end up scattered over the
    ///   heap, which then cannot shrink.
    ///
    /// And the smaller response buffers, freed as each image is written, stay in the heap for the
    /// next ones (8 MB of free heap kept, grown 1 MB at a time) instead of going back to the
    /// system and being faulted in again (far fewer page faults).
    static func forDownloads() {
        setArenaMax(2)
        setMmapThreshold(64 * 1024)
        setTrimThreshold(8 << 20)
        setTopPad(1 << 20)
    }

    /// Pages rewritten one after another: each needs a few page-sized buffers (the page, libxml2's
    /// copy, the output) that the next page can reuse. With the 64 KB threshold every one of them
    /// was mapped, faulted in page by page and unmapped again, a large share of the time over many
    /// pages. Buffers up to 4 MB now stay in the heap (and 8 MB of free heap
    /// is kept for them); a larger page's still come from `mmap`, so its memory is handed back
    /// as before (see ``handBackFreedMemory()``).
    static func forPages() {
        setMmapThreshold(4 << 20)
        setTrimThreshold(8 << 20)
    }

    /// Hands the heap's free memory back to the system (`malloc_trim`): after a large page, whose
    /// parse left more free memory in the heap than the trim threshold lets glibc return by itself.
    static func handBackFreedMemory() {
        #if canImport(Glibc)
        guard let symbol = dlsym(nil, "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
        #endif
    }

    private typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
    private typealias MallocTrim = @convention(c) (Int) -> Int32

    private static func setArenaMax(_ value: Int32) { set(option: -8, value) }  // M_ARENA_MAX
    private static func setMmapThreshold(_ value: Int32) { set(option: -3, value) }  // M_MMAP_THRESHOLD
    private static func setTrimThreshold(_ value: Int32) { set(option: -1, value) }  // M_TRIM_THRESHOLD
    private static func setTopPad(_ value: Int32) { set(option: -2, value) }  // M_TOP_PAD

    private static func set(option: Int32, _ value: Int32) {
        #if canImport(Glibc)
        guard let symbol = dlsym(nil, "mallopt") else { return }
        _ = unsafeBitCast(symbol, to: MallOpt.self)(option, value)
        #endif
    }
}
#endif
