/// One media query of Media Queries 4 (https://www.w3.org/TR/mediaqueries-4/#mq-syntax):
/// `screen and (min-width: 600px)`, `not print`, `(orientation: landscape) or (hover)`.
struct MediaQuery: Sendable, Hashable {
    /// `not` negates the query; `only` hid queries from browsers of Media Queries 3 and changes nothing.
    enum Restrictor: Sendable, Hashable {
        case none, not, only
    }

    let restrictor: Restrictor
    /// The media type, lowercase; nil when the query is a condition alone (which means `all`).
    let mediaType: String?
    let condition: MediaCondition?

    /// Idents that cannot be a media type, so that `not (…)` and `only and` read as they should.
    private static let reservedWords: Set<String> = ["not", "and", "or", "only", "layer"]

    /// Reads one query (no top-level comma); nil if `values` are not a media query, which a list
    /// then takes as `not all`.
    init?(_ values: ArraySlice<CSSComponentValue>) {
        let words = values.indices.filter { !values[$0].isWhitespace }
        var position = 0
        var restrictor = Restrictor.none
        if words.count > 1, case .token(.ident(let word)) = values[words[0]], ["not", "only"].contains(word.lowercased()),
           case .token(.ident) = values[words[1]] {
            restrictor = word.lowercased() == "not" ? .not : .only
            position = 1
        }
        if position < words.count, case .token(.ident(let type)) = values[words[position]],
           !Self.reservedWords.contains(type.lowercased()) {
            self.restrictor = restrictor
            mediaType = type.lowercased()
            guard position + 1 < words.count else {
                condition = nil
                return
            }
            // `and`, then a condition without `or`.
            let and = words[position + 1]
            guard case .token(.ident(let keyword)) = values[and], keyword.lowercased() == "and",
                  let condition = MediaCondition(values[(and + 1)...], allowingOr: false) else { return nil }
            self.condition = condition
            return
        }
        guard restrictor == .none, let condition = MediaCondition(values) else { return nil }
        self.restrictor = .none
        mediaType = nil
        self.condition = condition
    }

    /// Whether the query holds on `device`, a screen: `all` and `screen` match, `print` and other
    /// types do not. Unknown is false here, after `not` has kept it unknown.
    func matches(_ device: DeviceProfile) -> Bool {
        let typeMatches = mediaType.map { $0 == "all" || $0 == "screen" } ?? true
        var result = ThreeValuedTruth(typeMatches)
        if let condition {
            result = result && condition.evaluate(on: device)
        }
        return (restrictor == .not ? !result : result).isTrue
    }
}
