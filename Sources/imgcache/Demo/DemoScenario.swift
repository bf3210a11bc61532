#if CommandLine
/// What the demo server does besides serving files: which images are slow and which one is
/// missing on purpose, so the demo shows progress and a failure without any real network.
struct DemoScenario: Sendable {
    /// Site paths (e.g. `images/hero-960.jpg`) answered only after a delay.
    var delays: [String: Duration]
    /// A site path the page references that the server answers with 404, whether or not the
    /// site folder holds it.
    var missing: String

    /// The scenario of the bundled `fixtures/site`.
    static let bundled = DemoScenario(
        delays: [
            "images/hero-960.jpg": .milliseconds(1500),
            "images/video-poster.jpg": .milliseconds(1000),
            "images/lazy-harbour.jpg": .milliseconds(600),
            "images/gallery-4.jpg": .milliseconds(300),
        ],
        missing: "images/gallery-5.jpg"
    )
}
#endif
