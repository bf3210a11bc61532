/// A transport that runs the downloader's per-image tasks itself, on the thread that makes its
/// requests.
///
/// A response then resumes the task waiting for it on the thread that received it, with no
/// wake-up of another thread; the task's next request is handed in there too. The command line's
/// libcurl transport is one: without it each image woke a thread of the cooperative pool to go on
/// from its response (about a third of a 2,000-image fetch's CPU time was the tasks' side).
package protocol TaskStartingTransport: ImageTransport {
    /// Starts `work` in a new task that runs on the transport's thread for requests with `access`,
    /// or on the cooperative pool once the transport is shut down.
    func startTask(for access: PrivateNetworkAccess, _ work: sending @escaping () async -> Void) -> Task<Void, Never>

    /// Runs `operation` in the current task, preferring the transport's thread for requests with
    /// `access`: what it waits for resumes it there, and the tasks it starts there are handed in
    /// without a wake-up.
    func preferringThread<T: Sendable>(for access: PrivateNetworkAccess, _ operation: () async -> T) async -> T
}
