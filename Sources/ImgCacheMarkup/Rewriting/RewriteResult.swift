import ImgCacheSupport
/// The outcome of rewriting (or listing) one page.
public struct RewriteResult: Sendable {
    /// The page's bytes with image URLs replaced; identical to the input where nothing was rewritten.
    ///
    /// Spelled out from the input on each use, in time linear in the page's length: keep it when
    /// you need it more than once. To put a large page in a file, ``writeBytes(_:)`` hands it out
    /// in pieces and never holds it whole.
    public var bytes: [UInt8] {
        switch output {
        case .whole(let bytes): bytes
        case .spliced(let splice): splice.bytes
        }
    }

    /// Hands ``bytes`` to `write` in order, in pieces of about 64 KB or more, without building the
    /// whole page, so that a large page's output is never in memory at once. Stops at the first
    /// error `write` throws.
    public func writeBytes<Failure: Error>(_ write: (UnsafeRawBufferPointer) throws(Failure) -> Void) throws(Failure) {
        switch output {
        case .whole(let bytes): try bytes.withUnsafeBufferPointer { (piece) throws(Failure) in try write(UnsafeRawBufferPointer(piece)) }
        case .spliced(let splice): try splice.write(write)
        }
    }

    /// Writes ``bytes`` to the file at `path` as a whole file or not at all (see `AtomicFile`),
    /// in pieces, never holding the whole page.
    /// - Throws: `FileError` naming the path when the folder cannot be made or a write fails.
    public func write(toFile path: String) throws {
        try AtomicFile.write(to: path) { emit in try writeBytes(emit) }
    }

    /// The output's length in bytes.
    package var byteCount: Int {
        switch output {
        case .whole(let bytes): bytes.count
        case .spliced(let splice): splice.count
        }
    }

    /// How the output is held.
    enum Output: Sendable {
        /// Already spelled out (the input itself when nothing changed, or a page converted back
        /// from UTF-8 to its encoding).
        case whole([UInt8])
        /// The input and the replacements, spelled out when written.
        case spliced(PageSplice)
    }

    let output: Output
    /// Every image reference found, in document order.
    public let references: [ImageReference]
    /// The encoding the page was read in.
    public let encoding: HTMLEncoding
    /// How that encoding was determined.
    public let encodingSource: EncodingSource
    /// The absolute URLs of the stylesheets the page links (`<link rel=stylesheet href>`), in
    /// document order; empty for a stylesheet, or when the page's URL is not known and the links are relative.
    public internal(set) var linkedStylesheets: [String] = []
    /// Things a person should know: unresolvable relative URLs, a lying charset, a neutralised `<base>`.
    public let warnings: [RewriteWarning]
    /// The replacements besides the rewritten references' own: the emptied `<base href>` and the
    /// relative URLs made absolute against it. Ranges are in the page's bytes, or in its UTF-8 form
    /// for a page whose encoding is not ASCII-compatible (as are the references' byte ranges).
    /// Exposed only so that the fuzz targets can check that nothing else changed.
    @_spi(Fuzzing) public internal(set) var otherEdits: [(range: Range<Int>, replacement: [UInt8])] = []

    /// The references that were rewritten.
    package var rewrittenReferences: [ImageReference] { references.filter(\.rewritten) }

    init(output: Output, references: [ImageReference], encoding: HTMLEncoding, encodingSource: EncodingSource,
         linkedStylesheets: [String] = [], warnings: [RewriteWarning]) {
        self.output = output
        self.references = references
        self.encoding = encoding
        self.encodingSource = encodingSource
        self.linkedStylesheets = linkedStylesheets
        self.warnings = warnings
    }

    init(bytes: [UInt8], references: [ImageReference], encoding: HTMLEncoding, encodingSource: EncodingSource,
         linkedStylesheets: [String] = [], warnings: [RewriteWarning]) {
        self.init(output: .whole(bytes), references: references, encoding: encoding, encodingSource: encodingSource,
                  linkedStylesheets: linkedStylesheets, warnings: warnings)
    }
}
