/// A transport that runs the downloader's per-image tasks itself, on the thread that makes its
/// requests, and sends an image's request with no task at all where it can.
///
/// A response then resumes the task waiting for it on the thread that received it, with no
/// wake-up of another thread; the task's next request is handed in there too. The command line's
/// libcurl transport is one: without it each image woke a thread of the cooperative pool to go on
/// from its response (the tasks' side was a large share of a fetch's CPU time).
package protocol TaskStartingTransport: ImageTransport {
    /// Starts `work` in a new task that runs on the transport's thread for requests with `access`,
    /// or on the cooperative pool once the transport is shut down.
    func startTask(for access: PrivateNetworkAccess, _ work: sending @escaping () async -> Void) -> Task<Void, Never>

    /// Runs `operation` in the current task, preferring the transport's thread for requests with
    /// `access`: what it waits for resumes it there, and the tasks it starts there are handed in
    /// without a wake-up.
    func preferringThread<T: Sendable>(for access: PrivateNetworkAccess, _ operation: () async -> T) async -> T

    /// Sends `request` with no task waiting for it, and calls `completion` once, on the
    /// transport's thread, with what it came to; `cancellation` is told how to stop it. False,
    /// with nothing sent, when the request needs ``ImageTransport/send(_:)``.
    ///
    /// Most images need nothing after their response but the cache write: sent this way, they
    /// cost no task, continuation or cancellation handler, and no hop back to a task per response.
    func send(_ request: TransportRequest, cancelledBy cancellation: FetchCancellation,
              then completion: @escaping @Sendable (SentRequest) -> Void) -> Bool
}
