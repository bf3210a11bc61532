import Dispatch

/// Runs a session's blocking file work on Dispatch threads instead of the cooperative pool, so
/// that writing thousands of images never stalls the tasks that are receiving them; and, as its
/// ``FileWorkPlacement`` allows, a page's reads, writes and looks in the cache in place.
///
/// Each session has its own: how one session's files behave (a slow network share) decides
/// nothing for another's.
///
/// Images go to two serial queues, taken in turn, rather than one concurrent queue: the work is
/// mostly creating files in one folder. A concurrent queue grew to dozens of threads contending
/// for the folder in the kernel; one serial queue made file creation the critical path, while two
/// let the kernel allocate one image's inode while another image is linked into the folder.
package final class FileWork: Sendable {
    private let queues = (0..<2).map { DispatchQueue(label: "imgcache.file-work-\($0)", qos: .utility) }
    private let next = ThreadLocked(0)

    /// Pages, stylesheets and site files are read and written on a concurrent queue of their own:
    /// a site's files are in many folders, and queued behind the image writes of the two serial
    /// queues they held up the downloads of a site run.
    private let documents = DispatchQueue(label: "imgcache.documents", qos: .userInitiated, attributes: .concurrent)

    /// A page's or stylesheet's reads and writes, in place while each has been quick (nil: never).
    private let documentFileWork: InlineWhileQuick?
    /// A page's look in the cache (its images' index records and files), in place while each has
    /// been quick (nil: never). The cache writer holds the store's lock only to link a batch's
    /// files and append their records, so a look seldom waits.
    private let cacheLooks: InlineWhileQuick?

    package init(placement: FileWorkPlacement) {
        documentFileWork = placement.inPlaceLimit.map { InlineWhileQuick(limit: $0) }
        cacheLooks = placement.inPlaceLimit.map { InlineWhileQuick(limit: $0) }
    }

    private func queue() -> DispatchQueue {
        next.withLock { index in
            index = (index + 1) % queues.count
            return queues[index]
        }
    }

    /// Runs `work` on the next image queue, without waiting for it.
    package func submit(_ work: @escaping @Sendable () -> Void) {
        queue().async(execute: work)
    }

    /// Runs `work` on the next image queue.
    package func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue().async {
                continuation.resume(with: Result { try work() })
            }
        }
    }

    /// Runs `work` on the next image queue.
    package func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue().async {
                continuation.resume(returning: work())
            }
        }
    }

    /// Runs a page's or stylesheet's read or write: in place while such work has been quick, else
    /// on the documents' queue.
    package func runDocumentFileWork<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        if let documentFileWork, documentFileWork.isQuick { return try documentFileWork.run(work) }
        return try await runForDocument(work)
    }

    /// Runs a page's look in the cache: in place while such looks have been quick, else on the
    /// image queues.
    package func runCacheLook<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        if let cacheLooks, cacheLooks.isQuick { return cacheLooks.run(work) }
        return await run(work)
    }

    /// Runs file work for a page, stylesheet or site file on the documents' queue.
    package func runForDocument<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            documents.async { continuation.resume(with: Result { try work() }) }
        }
    }
}
