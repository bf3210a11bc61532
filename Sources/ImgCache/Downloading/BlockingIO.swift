import Dispatch

/// Runs blocking file-system work on a Dispatch thread instead of the cooperative pool, so that
/// writing thousands of images never stalls the tasks that are receiving them.
///
/// One serial queue, not a concurrent one: the work is creating and renaming files in one folder,
/// which the kernel serialises on the folder's lock anyway. A concurrent queue grew to dozens of
/// threads spinning on that lock (2,000 images from loopback: 4.4 s, 5 s of system CPU; serial:
/// 1.7 s, 0.8 s).
enum BlockingIO {
    private static let queue = DispatchQueue(label: "imgcache.blocking-io", qos: .utility)

    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try work() })
            }
        }
    }

    static func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: work())
            }
        }
    }
}
