/// A value delivered once, or a failure, for one task to wait for: what `OfflinePageLoader.open`
/// waits for (the page's first write) while the session's run that delivers it carries on.
/// Later deliveries are ignored. Not cancellable: the page is written whether or not the caller
/// still waits, as it was when the loader wrote it itself.
package final class FirstDelivery<Value: Sendable>: Sendable {
    private enum State {
        case waiting(CheckedContinuation<Value, any Error>?)
        case delivered(Result<Value, any Error>)
    }

    private let state = ThreadLocked(State.waiting(nil))

    package init() {}

    /// Delivers `value`, if nothing was delivered before.
    package func deliver(_ value: Value) {
        settle(.success(value))
    }

    /// Delivers `error`, if nothing was delivered before.
    package func fail(_ error: any Error) {
        settle(.failure(error))
    }

    private func settle(_ result: Result<Value, any Error>) {
        let waiter: CheckedContinuation<Value, any Error>? = state.withLock { state in
            guard case .waiting(let waiter) = state else { return nil }
            state = .delivered(result)
            return waiter
        }
        waiter?.resume(with: result)
    }

    /// Waits for the delivery (at once when it came before).
    /// - Throws: the error delivered.
    package func value() async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let delivered: Result<Value, any Error>? = state.withLock { state in
                switch state {
                case .delivered(let result): return result
                case .waiting: state = .waiting(continuation); return nil
                }
            }
            if let delivered { continuation.resume(with: delivered) }
        }
    }
}
