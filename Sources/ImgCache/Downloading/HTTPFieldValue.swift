/// What a header field may hold, for the values a server sends that imgcache keeps and sends back
/// (validators, types): checked where they come in, and again before a request carries them.
package enum HTTPFieldValue {
    /// Whether `value` can be sent as one field's value: no control character but a tab (RFC 9110's
    /// field-value; bytes past ASCII are obs-text). A CR or LF would end the field and start
    /// another one of the server's choosing.
    package static func isSendable(_ value: String) -> Bool {
        value.utf8.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7f) }
    }

    /// Whether `name` is a field name (RFC 9110's token).
    package static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default:
                "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }

    /// The longest `ETag` kept: real ones are a digest or a version, well under 100 bytes.
    static let maxETagBytes = 1024
    /// The longest `Last-Modified` kept: an HTTP date is 29 bytes.
    static let maxLastModifiedBytes = 64
    /// The longest `Content-Type` kept: a media type and a parameter or two.
    static let maxContentTypeBytes = 256

    /// `value` as it may be stored in the cache's index and sent back: nil when it is longer than
    /// `maxBytes` or could not be sent (see ``isSendable(_:)``), so that a server cannot make every
    /// index record carry 80 KB of its text, nor a later request carry fields of its choosing.
    static func storable(_ value: String?, maxBytes: Int) -> String? {
        guard let value, value.utf8.count <= maxBytes, isSendable(value) else { return nil }
        return value
    }
}
