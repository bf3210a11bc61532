import ImgCacheSupport
/// A flag one task sets and others read: "the caller that asked for this has given up". Unlike
/// task cancellation, it reaches the unstructured tasks a fetch runs in, which must not be
/// cancelled as a whole (other callers may be waiting for them).
final class CancellationFlag: Sendable {
    private let value = ThreadLocked(false)

    /// Whether ``set()`` was called.
    var isSet: Bool { value.withLock { $0 } }

    /// Raises the flag, for good.
    func set() {
        value.withLock { $0 = true }
    }
}
