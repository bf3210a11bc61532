import Dispatch

/// Runs blocking file-system work on Dispatch threads instead of the cooperative pool, so that
/// writing thousands of images never stalls the tasks that are receiving them.
///
/// Two serial queues, taken in turn, rather than one concurrent queue: the work is mostly
/// creating files in one folder. A concurrent queue grew to dozens of threads contending for the
/// folder in the kernel (2,000 images from loopback: 4.4 s, 5 s of system CPU); one serial queue
/// made file creation the critical path, while two let the kernel allocate one image's inode
/// while another image is linked into the folder.
enum BlockingIO {
    private static let queues = (0..<2).map { DispatchQueue(label: "imgcache.blocking-io-\($0)", qos: .utility) }
    private static let next = ThreadLocked(0)

    private static func queue() -> DispatchQueue {
        next.withLock { index in
            index = (index + 1) % queues.count
            return queues[index]
        }
    }

    /// Runs `work` on the next queue, without waiting for it.
    static func submit(_ work: @escaping @Sendable () -> Void) {
        queue().async(execute: work)
    }

    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue().async {
                continuation.resume(with: Result { try work() })
            }
        }
    }

    /// Pages, stylesheets and site files are read and written on a concurrent queue of their own:
    /// a site's files are in many folders, and queued behind the image writes of the two serial
    /// queues they held up the downloads of a site run (filling a 20,000-image cache from ten
    /// pages at once took a quarter more CPU).
    private static let documents = DispatchQueue(label: "imgcache.documents", qos: .userInitiated, attributes: .concurrent)

    /// Reading and writing a site's pages and stylesheets: on the calling thread while each has
    /// been quick, on ``documents`` once one was not. A hop there and back wakes two threads,
    /// which on a local file system costs more than the work (Benchmarks/HISTORY.md, A whole site).
    private static let documentFileWork = InlineWhileQuick(limit: .milliseconds(2))

    /// Runs a page's or stylesheet's read or write: in place while such work has been quick, else
    /// on ``documents`` (see ``documentFileWork``).
    static func runDocumentFileWork<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        if documentFileWork.isQuick { return try documentFileWork.run(work) }
        return try await runForDocument(work)
    }

    /// A page's look in the cache (its images' index records and files): in place while each has
    /// been quick, as ``documentFileWork``. The cache writer holds the store's lock only to link a
    /// batch's files and append their records.
    private static let cacheLooks = InlineWhileQuick(limit: .milliseconds(2))

    /// Runs a page's look in the cache: in place while such looks have been quick, else on the
    /// file queues (see ``cacheLooks``).
    static func runCacheLook<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        if cacheLooks.isQuick { return cacheLooks.run(work) }
        return await run(work)
    }

    /// Runs file work for a page, stylesheet or site file on ``documents``.
    static func runForDocument<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            documents.async { continuation.resume(with: Result { try work() }) }
        }
    }

    static func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue().async {
                continuation.resume(returning: work())
            }
        }
    }
}
