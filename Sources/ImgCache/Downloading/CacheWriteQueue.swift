import ImgCacheSupport
import ImgCacheStore
/// Writes downloaded images into the cache in batches, off the cooperative pool.
///
/// Images that arrive while earlier ones are being written wait and are then stored together
/// (``ImageCacheStore/store(_:now:)``): one turn of the folder lock, one index append and one
/// thread wake-up for the batch instead of one each. At most two batches are written at once, on
/// its ``FileWork``'s two queues, so that one batch's files are created while another's are linked.
/// Batches took less CPU than one store per image (Benchmarks/HISTORY.md, "Fetching").
final class CacheWriteQueue: Sendable {
    private struct Job: Sendable {
        let image: ImageToStore
        let done: @Sendable (Result<CacheEntryMetadata, any Error>) -> Void
    }

    private struct State {
        var pending: [Job] = []
        var writers = 0
    }

    /// The most writers at once, and the most images one takes at a time (each holds an open
    /// file until its batch is linked).
    private static let maxWriters = 2
    private static let maxBatch = 64

    private let store: ImageCacheStore
    private let fileWork: FileWork
    private let state = ThreadLocked(State())

    init(store: ImageCacheStore, fileWork: FileWork) {
        self.store = store
        self.fileWork = fileWork
    }

    /// Stores `image` with the next batch, then calls `done` with its metadata, on the writer's
    /// thread: whatever ends an image's download runs there, instead of waking a task to do it.
    func store(_ image: ImageToStore, then done: @escaping @Sendable (Result<CacheEntryMetadata, any Error>) -> Void) {
        let startsWriter = state.withLock { state in
            state.pending.append(Job(image: image, done: done))
            guard state.writers < Self.maxWriters else { return false }
            state.writers += 1
            return true
        }
        if startsWriter { fileWork.submit { self.write() } }
    }

    /// Takes batches until nothing is left waiting.
    private func write() {
        while true {
            let batch: [Job] = state.withLock { state in
                guard !state.pending.isEmpty else {
                    state.writers -= 1
                    return []
                }
                let taken = Array(state.pending.prefix(Self.maxBatch))
                state.pending.removeFirst(taken.count)
                return taken
            }
            guard !batch.isEmpty else { return }
            let results = store.store(batch.map(\.image))
            for (job, result) in zip(batch, results) { job.done(result) }
        }
    }
}
