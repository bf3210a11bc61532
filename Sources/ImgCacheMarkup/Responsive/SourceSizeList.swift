/// An image's `sizes` attribute, read as the HTML Standard's "parse a sizes attribute"
/// (https://html.spec.whatwg.org/multipage/images.html#parsing-a-sizes-attribute): the width the
/// page will lay the image out at on a device, which width descriptors (`800w`) are divided by.
///
/// Entries that can never apply (a size that is no valid length, a condition that does not
/// parse, `auto` where the image does not allow it) are dropped when read; the rest are kept in
/// order, since viewport units and conditions give each device its own answer.
struct SourceSizeList: Sendable, Hashable {
    /// An entry's size.
    enum Size: Sendable, Hashable {
        /// A non-negative length: a literal, unitless `0`, or a math function clamped at 0.
        case length(CSSNumericValue)
        /// `auto`: the width the image is laid out at, which only layout knows.
        case auto
    }

    /// An entry that may apply: its size, when its condition (if any) holds.
    struct Entry: Sendable, Hashable {
        let condition: MediaCondition?
        let size: Size
    }

    let entries: [Entry]

    /// Reads a `sizes` attribute; nil when the element has none (every device then gets `100vw`).
    /// - Parameters:
    ///   - text: the attribute's value.
    ///   - lazy: the image has `loading="lazy"`, which with a value that starts with `auto`
    ///     lets `auto` stand for its layout width.
    init(_ text: String?, lazy: Bool = false) {
        guard let text else {
            entries = []
            return
        }
        let lowercased = text.lowercased()
        let allowsAuto = lazy && (lowercased == "auto" || lowercased.hasPrefix("auto,"))
        var entries: [Entry] = []
        for list in CSSComponentValue.commaSeparatedLists(text) {
            var values = Array(list.trimmingWhitespace())
            guard let last = values.popLast(), let size = Self.size(last, allowsAuto: allowsAuto) else { continue }
            values = Array(values.trimmingWhitespace())
            if values.isEmpty {
                entries.append(Entry(condition: nil, size: size))
                // The standard returns at the first entry without a condition; what follows is unreachable.
                break
            }
            guard let condition = MediaCondition(values[...]) else { continue }
            entries.append(Entry(condition: condition, size: size))
        }
        self.entries = entries
    }

    /// The source size on `device`, in CSS pixels: the first entry whose condition holds, else `100vw`.
    /// - Parameters:
    ///   - device: the device the page is shown on.
    ///   - autoWidth: the image's layout width for `auto`, when the caller knows it; `100vw` otherwise.
    func sourceSize(on device: DeviceProfile, autoWidth: Double? = nil) -> Double {
        for entry in entries where entry.condition?.evaluate(on: device).isTrue ?? true {
            switch entry.size {
            case .length(let length):
                return max(length.resolved(on: device), 0)
            case .auto:
                return autoWidth ?? device.viewportWidth
            }
        }
        return device.viewportWidth
    }

    /// A `<source-size-value>`: a non-negative `<length>` (a math function among them, no other
    /// function, no percentage, unitless only for 0), or `auto` where allowed.
    private static func size(_ value: CSSComponentValue, allowsAuto: Bool) -> Size? {
        switch value {
        case .token(.ident(let word)) where word.lowercased() == "auto":
            return allowsAuto ? .auto : nil
        case .token(.number(let number)):
            guard number.value == 0, let zero = CSSNumericValue(value) else { return nil }
            return .length(zero)
        case .token(.dimension(let number, _)):
            guard number.value >= 0, let length = CSSNumericValue(value), length.category == .length else { return nil }
            return .length(length)
        case .function:
            guard let length = CSSNumericValue(value), length.category == .length else { return nil }
            return .length(length)
        default:
            return nil
        }
    }
}
