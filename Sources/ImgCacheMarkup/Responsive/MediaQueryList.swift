/// A media query list, as a `<source media>` attribute holds it: it matches when any of its
/// comma-separated queries does, and an empty list matches every device.
///
/// A query that does not parse counts as `not all` and the others still count, as in browsers:
/// `(min-width: 600px), foo bar` matches wide screens.
struct MediaQueryList: Sendable, Hashable {
    /// The queries in order; nil for one that did not parse.
    let queries: [MediaQuery?]

    init(_ text: String) {
        let values = CSSComponentValue.list(text)
        guard !values.allSatisfy(\.isWhitespace) else {
            queries = []
            return
        }
        queries = values.split(separator: .token(.comma), omittingEmptySubsequences: false).map { MediaQuery($0) }
    }

    func matches(_ device: DeviceProfile) -> Bool {
        queries.isEmpty || queries.contains { $0?.matches(device) ?? false }
    }
}
