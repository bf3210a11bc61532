import ImgCacheSupport
#if canImport(Darwin)
import Darwin
internal import libxml2  // the SDK's own module (Xcode 12+): headers in $SDKROOT/usr/include/libxml2
#else
import Glibc
internal import CLibXML2  // pkg-config's libxml-2.0
#endif

/// Moves libxml2 past the content of a `<script>` or `<style>` that it would otherwise read one
/// character at a time, without changing anything it reports.
///
/// libxml2 2.9 reads raw text through `htmlParseScript`: a UTF-8 decode, a validity check and a
/// copy for every character, handed to no callback (the scanner sets none for text), until `</`
/// and the element's name in any case. On pages with large inline scripts or style sheets that is
/// most of the parse. From the start-element callback, with the parser at the start tag's `>`,
/// this finds that same end (`</name` as a case-insensitive prefix, as `xmlStrncasecmp` compares)
/// in libxml2's own copy of the input, writes a `>` into the last content byte and moves the
/// parser there: libxml2 then consumes that `>` as the end of the start tag and finds the end tag
/// next, in the state it would have reached by reading the content. Offsets do not move, so
/// `xmlByteConsumed` is unchanged for every later event.
///
/// This relies on how 2.9.14 reads content (``LibXML2Runtime/allowsInputShortcuts``, checked at run
/// time, so an app on an OS with a different libxml2 is covered).
enum RawTextContentSkip {
    /// Moves the parser past the content of the raw-text element it has just reported, if that
    /// content is something `htmlParseScript` alone would read. Call only from the start-element
    /// callback of a `script` or `style` (`name` as libxml2 reports it: lowercase).
    /// - Parameter endTagOffset: where in the content the first `</name` stands, when the caller
    ///   has found it already (the scanner does for `style`, whose content it reads): bytes from
    ///   the content's start, which libxml2's input holds as the page does from there on.
    /// - Returns: how many content bytes libxml2 will not read (0 when it reads them itself).
    static func skipContent(of name: UnsafePointer<xmlChar>, in context: htmlParserCtxtPtr, endTagOffset: Int? = nil) -> Int {
        guard let input = context.pointee.input, let cursor = input.pointee.cur, let end = input.pointee.end else { return 0 }
        // The parser stands at the start tag's `>` (not at `/>`, which ends the element, nor at
        // the end of input). Content that starts with `<` goes through the content loop's tag
        // branches first (`</p>` would be parsed as an end tag): left to libxml2.
        guard cursor + 1 < end, cursor.pointee == UInt8(ascii: ">"), cursor[1] != UInt8(ascii: "<") else { return 0 }
        let nameBytes = UnsafeBufferPointer(start: name, count: strlen(UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self)))
        let content = UnsafeBufferPointer(start: cursor + 1, count: end - (cursor + 1))
        // As `xmlStrncasecmp` compares: ASCII letters in either case (the name is lowercase).
        func isEndTag(at p: Int) -> Bool {
            content[p] == UInt8(ascii: "<") && content[p + 1] == UInt8(ascii: "/")
                && UnsafeBufferPointer(rebasing: content[(p + 2)..<(p + 2 + nameBytes.count)]).elementsEqual(nameBytes, by: { $0.asciiLowercased == $1 })
        }
        var p: Int
        if let known = endTagOffset, known >= 1, known + 2 + nameBytes.count <= content.count, isEndTag(at: known) {
            p = known
            assert(firstEndTag(in: content, nameLength: nameBytes.count, isEndTag) == known, "the scanner's end tag is not libxml2's")
        } else {
            // No end tag: libxml2 reads to the end of the input; leave that to it.
            guard let found = firstEndTag(in: content, nameLength: nameBytes.count, isEndTag) else { return 0 }
            p = found
        }
        // `p` ≥ 1: the byte before the end tag is content, which libxml2 will not read.
        let last = UnsafeMutablePointer(mutating: content.baseAddress! + p - 1)
        last.pointee = UInt8(ascii: ">")
        input.pointee.cur = UnsafePointer(last)
        return p - 1
    }

    /// The first `</name` of `content` after its first byte (which is not `<`), or nil.
    private static func firstEndTag(in content: UnsafeBufferPointer<UInt8>, nameLength: Int, _ isEndTag: (Int) -> Bool) -> Int? {
        var p = 1
        while true {
            p = content.firstOffset(of: UInt8(ascii: "<"), from: p, before: content.count)
            guard p + 2 + nameLength <= content.count else { return nil }
            if isEndTag(p) { return p }
            p += 1
        }
    }
}
