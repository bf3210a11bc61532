#if CommandLine
/// The header fields of ``Behaviour/endlessHeaders(interval:)``: about 100 bytes each.
enum HeaderFlood {
    /// A field value of 80 bytes.
    static let filler = String(repeating: "a", count: 80)

    /// Field `n` as it goes on the wire, CRLF included.
    static func line(_ n: Int) -> String {
        "X-Filler-\(n): \(filler)\r\n"
    }
}
#endif
