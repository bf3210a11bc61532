#if CommandLine
/// Conditional-request evaluation for `Behaviour.image` (RFC 9110 §13.1.2, §13.1.3, §13.2.2).
enum Conditional {
    /// Whether the request's validators say the client's copy is current (→ 304).
    static func notModified(request: RecordedRequest, etag: String?, lastModified: String?) -> Bool {
        let noneMatch = request.headers(named: "If-None-Match")
        if !noneMatch.isEmpty {
            // If-None-Match present: If-Modified-Since is ignored.
            guard let etag else { return false }
            let candidates = noneMatch.flatMap { $0.split(separator: ",") }.map {
                $0.trimmedHTTPWhitespace()
            }
            return candidates.contains { $0 == "*" || weak($0) == weak(etag) }
        }
        guard let lastModified, let since = request.header("If-Modified-Since") else { return false }
        let since_ = since.trimmedHTTPWhitespace()
        if since_ == lastModified { return true }
        guard let sinceDate = HTTPDate.parse(since_), let modified = HTTPDate.parse(lastModified) else {
            return false
        }
        return modified <= sinceDate
    }

    private static func weak(_ tag: String) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag)
    }
}

/// Parses IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) into seconds since 1970.
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    static func parse(_ text: String) -> Int? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT",
            let day = Int(parts[1]),
            let monthIndex = months.firstIndex(of: parts[2].lowercased()),
            let year = Int(parts[3])
        else { return nil }
        let time = parts[4].split(separator: ":")
        guard time.count == 3, let h = Int(time[0]), let m = Int(time[1]), let s = Int(time[2]) else { return nil }
        return daysFromCivil(year: year, month: monthIndex + 1, day: day) * 86_400 + h * 3_600 + m * 60 + s
    }

    /// Howard Hinnant's days_from_civil.
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}

extension StringProtocol {
    func trimmedHTTPWhitespace() -> String {
        let set: String = " \t"
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
#endif
