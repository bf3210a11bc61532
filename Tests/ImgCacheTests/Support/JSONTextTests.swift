import Foundation
import Testing
@testable import ImgCache
@testable import ImgCacheSupport

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

    @Test("integers are written as String(_:) writes them, keys and containers as JSONEncoder spaces them")
    func integersAndKeys() throws {
        let values: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, 1_234_567, Int64(Int32.max), Int64.max, Int64.min, Int64.min + 1]
        for value in values {
            var text = JSONText(indented: false)
            text.open()
            text.field("n", integer: value)
            text.close()
            #expect(text.bytes == Array("{\"n\":\(value)}".utf8))
        }
        var unsigned = JSONText(indented: false)
        unsigned.open()
        unsigned.field("inode", integer: UInt64.max)
        unsigned.key(escaping: "https://example.com/\"q\"")
        unsigned.string("x")
        unsigned.close()
        #expect(String(decoding: unsigned.bytes, as: UTF8.self) == "{\"inode\":\(UInt64.max),\"https://example.com/\\\"q\\\"\":\"x\"}")

        struct Sample: Encodable { let a: Int; let b: [String: Int]; let c: String }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var pretty = JSONText()
        pretty.open()
        pretty.field("a", integer: -42)
        pretty.key("b")
        pretty.open()
        pretty.field("x/y", integer: 7)
        pretty.close()
        pretty.field("c", string: "d")
        pretty.close()
        #expect(pretty.bytes == Array(try encoder.encode(Sample(a: -42, b: ["x/y": 7], c: "d"))))
    }

    @Test("text far longer than the memory first set aside for it comes out whole, as JSONEncoder writes it")
    func growsPastItsFirstCapacity() throws {
        struct Sample: Encodable { let images: [String: String]; let count: Int }
        var images: [String: String] = [:]
        for index in 0..<300 {
            let number = String(repeating: "0", count: 3 - String(index).count) + String(index)
            images["https://example.com/\(number)/\(String(repeating: "x", count: index))\"q\".png"] = "name-\(number).png"
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var text = JSONText(capacity: 16)
        text.open()
        text.field("count", integer: images.count)
        text.key("images")
        text.open()
        for url in images.keys.sorted() {
            text.key(escaping: url)
            text.string(images[url]!)
        }
        text.close()
        text.close()
        #expect(text.count > 50_000)
        #expect(text.bytes == Array(try encoder.encode(Sample(images: images, count: images.count))))
    }

    @Test("a path's containing folder, as open(2) takes it")
    func containingFolder() {
        let cases = ["name.png": ".", "/name.png": "/", "a/b.png": "a", "/a/b/c.png": "/a/b", "caf\u{e9}/\u{fc}.png": "caf\u{e9}",
                     "dir/": "dir", "//x": "/", "a\u{301}/b": "a\u{301}", "\u{301}/b": "\u{301}"]
        for (path, folder) in cases {
            #expect(path.containingFolder == folder, "\(path)")
        }
    }
}
