/// When the page is written relative to its downloads.
public enum FetchMode: String, Sendable, CaseIterable, Codable {
    /// Wait for the downloads, then rewrite only the images that are in the cache; failed ones
    /// keep their remote URL. For build steps: the output always works.
    case build
    /// Rewrite every image first (names are deterministic), hand the page over, then download.
    /// For apps: show the page at once and reload when the images are in.
    case live
}
