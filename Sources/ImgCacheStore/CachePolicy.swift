public import Foundation

/// How long cached images stay fresh, how much room the cache may take, and how hard it tries to
/// survive a power cut.
public struct CachePolicy: Sendable, Equatable {
    /// How long after fetching (or revalidating) an image it is served without asking the server.
    /// `nil`: never stale. `0`: always stale, so every use revalidates with `If-None-Match` /
    /// `If-Modified-Since`. Also the age beyond which ``ImageCacheStore/prune(now:)`` deletes.
    public var maxAge: TimeInterval?
    /// The most image bytes the folder may hold (the index file is not counted); storing
    /// beyond it evicts the least recently used entries. `nil`: no cap.
    public var maxTotalBytes: Int?
    /// Whether every file is flushed to disk (`fsync`) before being renamed into place.
    ///
    /// Off by default: it costs milliseconds per file, and without it a power cut can at worst
    /// leave an empty or damaged image, which the size check or the SHA-256 check catches, so
    /// the entry reads as missing and is fetched again. Atomicity against crashed or killed
    /// processes does not depend on it; only durability across power loss does.
    public var durableWrites: Bool

    /// Creates a policy.
    /// - Parameters:
    ///   - maxAge: seconds an image stays fresh; `nil` for ever, `0` to always revalidate.
    ///   - maxTotalBytes: cap on the image bytes kept; `nil` for no cap.
    ///   - durableWrites: `fsync` each file before it is renamed into place.
    public init(maxAge: TimeInterval? = nil, maxTotalBytes: Int? = nil, durableWrites: Bool = false) {
        self.maxAge = maxAge
        self.maxTotalBytes = maxTotalBytes
        self.durableWrites = durableWrites
    }

    /// Whether an entry fetched at `fetchedAt` needs revalidating at `now`.
    func isStale(fetchedAt: Date, now: Date) -> Bool {
        guard let maxAge else { return false }
        // Compared separately so that 0 means "always", even when a clock set back makes the
        // entry look as if it were fetched in the future.
        if maxAge <= 0 { return true }
        return now.timeIntervalSince(fetchedAt) >= maxAge
    }
}
