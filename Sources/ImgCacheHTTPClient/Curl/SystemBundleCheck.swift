#if CommandLine
#if os(Linux) && canImport(CCurl)
import Foundation

/// Whether the CA folder holds every certificate of the CA bundle (``HashedCertificateFolder``):
/// the system's, or those `SSL_CERT_DIR` and `SSL_CERT_FILE` name instead. Worked out on a thread
/// of its own while a command starts, for the https run it is about to make.
///
/// Worked out when the first https transfer is configured, the check (reading some 140 hashed
/// files and the bundle) held back the first request, the page's, on the transport's
/// thread. A command that names an https URL ``schedule()``s it before parsing its arguments and
/// ``check(bundle:folder:)``s on the thread that loads libcurl; ``CurlTrustFiles`` then
/// ``take(bundle:folder:)``s the verdict, once: later trust files work it out again, as the files
/// may have changed since.
enum SystemBundleCheck {
    private enum State {
        case idle
        /// A check is on its way: ``take(bundle:folder:)`` waits for it.
        case scheduled
        case done(bundle: String, folder: String, holdsEvery: Bool)
    }

    private static let condition = NSCondition()
    nonisolated(unsafe) private static var state = State.idle  // under `condition`

    /// Says that a check is on its way, so that trust files made meanwhile wait for it rather
    /// than do it again. Every call must be followed by one of ``check(bundle:folder:)`` or
    /// ``cancel()``, on any thread.
    static func schedule() {
        condition.withLock { state = .scheduled }
    }

    /// Does the check scheduled and keeps its verdict for ``take(bundle:folder:)``.
    static func check(bundle: String, folder: String) {
        let holdsEvery = HashedCertificateFolder(path: folder).holdsEveryCertificate(of: bundle)
        condition.withLock {
            state = .done(bundle: bundle, folder: folder, holdsEvery: holdsEvery)
            condition.broadcast()
        }
    }

    /// Ends a scheduled check without a verdict (no system bundle or folder, or no libcurl).
    static func cancel() {
        condition.withLock {
            if case .scheduled = state { state = .idle }
            condition.broadcast()
        }
    }

    /// The verdict of the check of `bundle` against `folder`, waiting for a scheduled one; nil when
    /// none was made for these two, or it was taken already.
    static func take(bundle: String, folder: String) -> Bool? {
        condition.withLock {
            while case .scheduled = state { condition.wait() }
            guard case .done(bundle, folder, let holdsEvery) = state else { return nil }
            state = .idle
            return holdsEvery
        }
    }
}
#endif
#endif
