import Foundation
import Testing
@testable import ImgCache

@Suite("JSON text written by hand")
struct JSONTextTests {
    @Test("a string with a character to escape at any position, or none, is written as JSONEncoder writes it")
    func escapesAsJSONEncoder() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let plain = Array("https://example.com/é/img_0123456789.png?w=1&h=2#frag/more-text".unicodeScalars)
        for special in ["\"", "\\", "\n", "\t", "\u{1}", "\u{1F}", "/", "é", "\u{7F}"] as [Unicode.Scalar] {
            for length in [0, 1, 7, 8, 9, 16, 23, 40, plain.count] {
                for position in 0...length {
                    var scalars = Array(plain.prefix(length))
                    scalars.insert(special, at: position)
                    let string = String(String.UnicodeScalarView(scalars))
                    var text = JSONText(indented: false)
                    text.string(string)
                    #expect(text.bytes == Array(try encoder.encode(string)), "\(string.debugDescription)")
                }
            }
        }
    }
}
