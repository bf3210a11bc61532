import ImgCacheSupport
#if canImport(Darwin)
import Darwin
internal import libxml2  // the SDK's own module (Xcode 12+): headers in $SDKROOT/usr/include/libxml2
#else
import Glibc
internal import CLibXML2  // pkg-config's libxml-2.0
#endif

/// Takes out of libxml2's copy of the input the text and long attribute values that libxml2
/// would read for nothing, before it reads them, without changing anything it reports.
///
/// libxml2 2.9 reads text (`htmlParseCharDataInternal`) and attribute values
/// (`htmlParseHTMLAttribute`) a character at a time: a UTF-8 decode and a copy per character.
/// The scanner sets no text callback and lexes every tag it needs from the page itself, so of the
/// text libxml2 only needs to know what decides a paragraph it implies (whether the text holds
/// anything but blanks, and where it ends), and of a value nothing. From a callback after which
/// libxml2 reads content (after a start tag, an end tag or a comment), this reads ahead the way
/// libxml2's content loop and `htmlParseStartTag` will: the text up to the next `&` or `<`, kept
/// through its first character that is not a blank, and then the next start tag, each long quoted
/// value of which is cut to `""`. The bytes before each cut are moved forward over it (`memmove`
/// within libxml2's own copy): libxml2 reads the same tags, the same attribute names, the same
/// structure. Offsets after the last cut do not move; the few that libxml2 may report from the
/// moved bytes (a paragraph it implies for text) are mapped back by ``originalOffset(_:)``.
///
/// Text of 1,000 bytes or more is read by libxml2 in pieces, each of which may imply a paragraph
/// where it ends: such text is cut only where no paragraph can be implied (inside an element other
/// than `html` and `head`). The lexing of the tag stops, keeping the cuts made so far, at anything
/// it does not reproduce exactly (a bogus attribute name, a name of 100 or more bytes, `/` inside
/// a tag, an unterminated value), and the search for the tag stops at anything but text: `</`,
/// `<!`, `<?`, or `<` before anything but a letter (2.9.12–13 read that as a bogus tag, 2.9.14 as
/// text). Only for the version of ``LibXML2Runtime/allowsInputShortcuts``.
struct UnreadInputCut {
    /// Shorter text and values are left: a cut costs a `memmove` call and its bookkeeping, reading
    /// a byte costs libxml2 tens of instructions. (Of 8 and 16, 8 took fewer instructions on the
    /// real pages.)
    private static let shortestCut = 8
    /// Bytes moved per byte cut at most: text before a tag moves with it.
    private static let maximumMovedPerCutByte = 64
    /// `HTML_PARSER_BIG_BUFFER_SIZE`: libxml2 hands text on (and may imply a paragraph) each time
    /// it has copied this many bytes.
    private static let textPiece = 1000

    /// How many bytes libxml2 did not read.
    private(set) var cutBytes = 0
    /// Offsets (as `xmlByteConsumed` counts) before this have been looked at.
    private var preparedUpTo = 0
    /// Where bytes were moved to, as `xmlByteConsumed` counts, and by how much.
    private var moved: [(range: Range<Int>, delta: Int)] = []
    private var movedEnd = 0
    private var cuts: [Range<Int>] = []

    /// The page offset of an offset `xmlByteConsumed` reported.
    func originalOffset(_ offset: Int) -> Int {
        guard offset < movedEnd else { return offset }
        for segment in moved where segment.range.contains(offset) {
            return offset - segment.delta
        }
        return offset
    }

    /// Call from the start-element callback of an element whose content libxml2 parses as markup
    /// (not `script` or `style`): the parser stands at the tag's `>` or `/>`.
    /// - Parameter isEmpty: whether libxml2's table says the element has no content (`img`, `br`):
    ///   then what follows is its parent's content, as after `/>`.
    mutating func prepareAfterStartTag(in context: htmlParserCtxtPtr, isEmpty: Bool) {
        guard let input = context.pointee.input, let cursor = input.pointee.cur, let end = input.pointee.end,
              cursor < end else { return }
        let depth = Int(context.pointee.nameNr)
        if cursor.pointee == UInt8(ascii: ">") {
            let parent = isEmpty ? 2 : 1
            prepare(input, cursor, end, textStart: 1, longTextIsCut: Self.impliesNoParagraph(context, depth - parent))
        } else if cursor.pointee == UInt8(ascii: "/"), cursor + 1 < end, cursor[1] == UInt8(ascii: ">") {
            prepare(input, cursor, end, textStart: 2, longTextIsCut: Self.impliesNoParagraph(context, depth - 2))
        }
    }

    /// Call from the comment callback: the parser stands right after the comment's `>`.
    mutating func prepareAfterComment(in context: htmlParserCtxtPtr) {
        prepareAfterMarkup(in: context, longTextIsCut: Self.impliesNoParagraph(context, Int(context.pointee.nameNr) - 1))
    }

    /// Call from the end-element callback: where the parser stands right after a `>` (an end
    /// tag's, a `/>`), it reads content next. (libxml2 also ends elements in the middle of a start
    /// tag, right after its name: not after a `>`.) Which element's content follows is not known
    /// yet (an end tag may close several), so long text is left.
    mutating func prepareAfterEndTag(in context: htmlParserCtxtPtr) {
        prepareAfterMarkup(in: context, longTextIsCut: false)
    }

    private mutating func prepareAfterMarkup(in context: htmlParserCtxtPtr, longTextIsCut: Bool) {
        guard let input = context.pointee.input, let cursor = input.pointee.cur, let end = input.pointee.end,
              let base = input.pointee.base, cursor > base, cursor <= end, cursor[-1] == UInt8(ascii: ">") else { return }
        prepare(input, cursor, end, textStart: 0, longTextIsCut: longTextIsCut)
    }

    /// Whether text inside the element at `index` of libxml2's stack of open elements never makes
    /// libxml2 imply a paragraph (`htmlCheckParagraph`: it does outside any element, and in `html`
    /// and `head`).
    private static func impliesNoParagraph(_ context: htmlParserCtxtPtr, _ index: Int) -> Bool {
        guard index >= 0, index < Int(context.pointee.nameNr), let names = context.pointee.nameTab,
              let name = names[index] else { return false }
        return strcmp(UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self), "html") != 0
            && strcmp(UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self), "head") != 0
    }

    private mutating func prepare(
        _ input: xmlParserInputPtr, _ cursor: UnsafePointer<xmlChar>, _ end: UnsafePointer<xmlChar>,
        textStart: Int, longTextIsCut: Bool
    ) {
        let cursorOffset = Int(input.pointee.consumed) + (cursor - input.pointee.base)
        guard cursorOffset >= preparedUpTo else { return }
        let bytes = UnsafeMutableBufferPointer(mutating: UnsafeBufferPointer(start: cursor, count: end - cursor))
        let view = UnsafeBufferPointer(bytes)
        let textBegin = min(textStart, view.count)
        // The text ends at the first `<` or `&`; the search for the tag goes on past an `&`.
        let textEnd = view.firstOffset(of: UInt8(ascii: "<"), or: UInt8(ascii: "&"), from: textBegin, before: view.count)
        let tagStart = textEnd < view.count && view[textEnd] == UInt8(ascii: "&")
            ? view.firstOffset(of: UInt8(ascii: "<"), from: textEnd, before: view.count) : textEnd
        cuts.removeAll(keepingCapacity: true)
        // Text that runs to the end of the input is left (libxml2 ends the parse there).
        if tagStart < view.count {
            cutText(view, from: textBegin, to: textEnd, longTextIsCut: longTextIsCut)
        }
        // A start tag only where a letter follows the `<`.
        if tagStart + 1 < view.count, view[tagStart + 1].isASCIILetter {
            preparedUpTo = cursorOffset + lexCuts(view, tagStart: tagStart)
        } else {
            preparedUpTo = cursorOffset + tagStart + 1
        }
        guard let last = cuts.last else { return }
        let cut = cuts.reduce(0) { $0 + $1.count }
        guard last.lowerBound - (cut - last.count) <= cut * Self.maximumMovedPerCutByte else { return }

        // Move each stretch between cuts forward, the last first, so that they end where the
        // last cut ends.
        moved.removeAll(keepingCapacity: true)
        let base = bytes.baseAddress!
        var destinationEnd = last.upperBound
        var k = cuts.count - 1
        while k >= 0 {
            let stretchStart = k > 0 ? cuts[k - 1].upperBound : 0
            let stretchEnd = cuts[k].lowerBound
            let length = stretchEnd - stretchStart
            let destination = destinationEnd - length
            memmove(base + destination, base + stretchStart, length)
            moved.append((cursorOffset + destination..<cursorOffset + destinationEnd, destination - stretchStart))
            destinationEnd = destination
            k -= 1
        }
        movedEnd = cursorOffset + last.upperBound
        input.pointee.cur = UnsafePointer(base + destinationEnd)
        cutBytes += cut
    }

    /// Records a cut of the text in `start..<end` (which holds no `<` or `&`) after its first
    /// character that is not a blank (or its first blank, when all are): libxml2 then sees the
    /// same text ending at the same place, blank or not as before.
    private mutating func cutText(_ view: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, longTextIsCut: Bool) {
        guard end - start >= Self.shortestCut, end - start < Self.textPiece || longTextIsCut else { return }
        var keep = start
        while keep < end, Self.isBlank(view[keep]) { keep += 1 }
        if keep == end {
            keep = start + 1
        } else {
            // The whole character: libxml2 must see valid UTF-8.
            keep += 1
            while keep < end, view[keep] & 0xC0 == 0x80 { keep += 1 }
        }
        if end - keep >= Self.shortestCut { cuts.append(keep..<end) }
    }

    /// Lexes the start tag at `tagStart` as `htmlParseStartTag` does, appending the interiors of
    /// long quoted values to `cuts`. Returns where the lexing stopped: the tag's `>` or `/>`, or
    /// the first thing it does not reproduce.
    private mutating func lexCuts(_ view: UnsafeBufferPointer<UInt8>, tagStart: Int) -> Int {
        let count = view.count
        var i = tagStart + 1
        // htmlParseHTMLName: at most 100 bytes (longer names are split, which is not reproduced).
        let nameStart = i
        while i < count, Self.isNameByte(view[i]) { i += 1 }
        // `<meta>`'s values are read by libxml2 (htmlCheckMeta): leave them.
        guard i - nameStart < 100, i - nameStart != 4
                || !UnsafeBufferPointer(rebasing: view[nameStart..<i]).elementsEqual("meta".utf8, by: { $0.asciiLowercased == $1 })
        else { return i }
        while true {
            i = Self.skipBlanks(view, i)
            guard i < count else { return i }
            let byte = view[i]
            if byte == UInt8(ascii: ">") { return i }
            if byte == UInt8(ascii: "/") { return i }  // `/>` ends the tag; a lone `/` is a bogus name
            // htmlParseAttribute: a name (which may start with `_`, `:` or `.` but not a digit or `-`).
            guard byte.isASCIILetter || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
            else { return i }
            let attributeNameStart = i
            while i < count, Self.isNameByte(view[i]) { i += 1 }
            guard i - attributeNameStart < 100 else { return i }
            i = Self.skipBlanks(view, i)
            guard i < count, view[i] == UInt8(ascii: "=") else { continue }
            i = Self.skipBlanks(view, i + 1)
            guard i < count else { return i }
            let quote = view[i]
            if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
                // htmlParseHTMLAttribute reads to the same quote: entities and character
                // references inside never span one.
                let close = view.firstOffset(of: quote, from: i + 1, before: count)
                guard close < count else { return i }
                if close - (i + 1) >= Self.shortestCut { cuts.append(i + 1..<close) }
                i = close + 1
            } else {
                while i < count, !Self.isBlank(view[i]), view[i] != UInt8(ascii: ">") { i += 1 }
            }
        }
    }

    /// libxml2's `IS_BLANK_CH`: space, tab, LF, CR (not form feed).
    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func skipBlanks(_ view: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int {
        var i = start
        while i < view.count, isBlank(view[i]) { i += 1 }
        return i
    }

    /// A byte `htmlParseHTMLName` takes after the first: ASCII letters, digits, `:`, `-`, `_`, `.`.
    private static func isNameByte(_ byte: UInt8) -> Bool {
        byte.isASCIILetter || (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
    }
}
