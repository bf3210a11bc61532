/// The result of a media condition under Media Queries 4's three-valued (Kleene) logic
/// (https://www.w3.org/TR/mediaqueries-4/#evaluating): what a browser does not understand is
/// `unknown`, not false, so that `not (unknown)` stays unknown instead of becoming true.
enum ThreeValuedTruth: Sendable, Hashable {
    case `true`, `false`, unknown

    init(_ value: Bool) {
        self = value ? .true : .false
    }

    /// Where a yes or no is needed (a whole query, a `sizes` entry), unknown is no.
    var isTrue: Bool { self == .true }

    static prefix func ! (operand: Self) -> Self {
        switch operand {
        case .true: .false
        case .false: .true
        case .unknown: .unknown
        }
    }

    static func && (lhs: Self, rhs: @autoclosure () -> Self) -> Self {
        if lhs == .false { return .false }
        let rhs = rhs()
        if rhs == .false { return .false }
        return lhs == .true && rhs == .true ? .true : .unknown
    }

    static func || (lhs: Self, rhs: @autoclosure () -> Self) -> Self {
        if lhs == .true { return .true }
        let rhs = rhs()
        if rhs == .true { return .true }
        return lhs == .false && rhs == .false ? .false : .unknown
    }
}
