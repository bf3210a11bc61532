import Dispatch

/// Runs blocking file-system work on Dispatch's threads instead of the cooperative pool, so that
/// writing thousands of images never stalls the tasks that are receiving them.
enum BlockingIO {
    private static let queue = DispatchQueue(label: "imgcache.blocking-io", qos: .utility, attributes: .concurrent)

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
