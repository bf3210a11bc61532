/// A replacement of a byte range of the page by bytes already escaped for where they go.
struct ByteEdit: Sendable {
    let range: Range<Int>
    let replacement: [UInt8]
}

/// A rewritten page that is not spelled out yet: the input's bytes, with rewritten image URLs
/// and other edits spliced in when it is written.
///
/// Kept this way so that a large page can go to its file in pieces: built whole, the output of a
/// large page sat in memory beside the input and every reference, and made the peak.
struct PageSplice: Sendable {
    /// The bytes the references' ranges point into.
    let source: [UInt8]
    /// In document order; the rewritten ones are replaced by their local path.
    let references: [ImageReference]
    let prefix: [UInt8]
    /// Other replacements (from `<base>` handling), sorted by where they start.
    let edits: [ByteEdit]
    /// The output's length in bytes.
    let count: Int

    /// An edit that overlaps an earlier one is dropped rather than corrupting the page.
    init(source: [UInt8], references: [ImageReference], prefix: String, edits: [ByteEdit]) {
        self.source = source
        self.references = references
        self.prefix = Array(prefix.utf8)
        self.edits = edits.sorted { $0.range.lowerBound < $1.range.lowerBound }
        // Counted by a dry run, so that `bytes` reserves the exact size (a large page is never
        // copied into a doubled buffer) and agrees with what is written, dropped edits included.
        var counter = CountingSink()
        Self.run(source: source, references: references, prefix: self.prefix, edits: self.edits, into: &counter)
        count = counter.count
    }

    /// The whole output page.
    var bytes: [UInt8] {
        var sink = ArraySink(capacity: count)
        Self.run(source: source, references: references, prefix: prefix, edits: edits, into: &sink)
        return sink.bytes
    }

    /// The first `limit` bytes of the output (all of it when shorter), without building the rest.
    func prefix(_ limit: Int) -> [UInt8] {
        var sink = ArraySink(capacity: min(limit, count), limit: limit)
        Self.run(source: source, references: references, prefix: prefix, edits: edits, into: &sink)
        return sink.bytes
    }

    /// Hands the output to `write` in order, in pieces of about 64 KB (a long unchanged stretch
    /// of the page goes as it is, without a copy).
    func write<Failure: Error>(_ write: (UnsafeRawBufferPointer) throws(Failure) -> Void) throws(Failure) {
        try withoutActuallyEscaping(write) { (write) throws(Failure) in
            var sink = PieceSink(write: write, capacity: count)
            try Self.run(source: source, references: references, prefix: prefix, edits: edits, into: &sink)
            try sink.flush()
        }
    }

    // MARK: - Splicing

    private static func run<Sink: SpliceSink>(source: [UInt8], references: [ImageReference], prefix: [UInt8],
                                              edits: [ByteEdit], into sink: inout Sink) throws(Sink.Failure) {
        try source.withUnsafeBufferPointer { (bytes) throws(Sink.Failure) in
            var position = 0
            var nextEdit = 0
            var name: [UInt8] = []
            name.reserveCapacity(128)

            func copy(upTo offset: Int) throws(Sink.Failure) {
                try sink.append(UnsafeBufferPointer(rebasing: bytes[position..<offset]))
            }
            func applyEdits(before offset: Int) throws(Sink.Failure) {
                while nextEdit < edits.count, edits[nextEdit].range.lowerBound < offset {
                    let edit = edits[nextEdit]
                    nextEdit += 1
                    guard edit.range.lowerBound >= position, edit.range.upperBound <= bytes.count else { continue }
                    try copy(upTo: edit.range.lowerBound)
                    try edit.replacement.withUnsafeBufferPointer { (piece) throws(Sink.Failure) in try sink.append(piece) }
                    position = edit.range.upperBound
                }
            }

            // Read in place: a copy of each reference retained and released its strings, twice a
            // page (the count, then the write), for every reference of the page.
            for index in references.indices where references[index].rewritten {
                guard !sink.isFull else { return }
                let range = references[index].byteRange
                try applyEdits(before: range.lowerBound)
                guard range.lowerBound >= position, range.upperBound <= bytes.count,
                      let local = references[index].localNameValue else { continue }
                try copy(upTo: range.lowerBound)
                // Prefix and name are inert in every context (see LocalReferenceStyle): no escaping.
                try sink.append(prefix: prefix, name: local, spelledIn: &name)
                position = range.upperBound
            }
            try applyEdits(before: Int.max)
            try copy(upTo: bytes.count)
        }
    }
}

/// Where `PageSplice` puts the output's bytes.
private protocol SpliceSink {
    associatedtype Failure: Error
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure)
    /// Appends a local path; `scratch` is a buffer to spell it in.
    mutating func append(prefix: [UInt8], name: LocalName, spelledIn scratch: inout [UInt8]) throws(Failure)
    /// True once the sink wants no more bytes.
    var isFull: Bool { get }
}

extension SpliceSink {
    mutating func append(prefix: [UInt8], name: LocalName, spelledIn scratch: inout [UInt8]) throws(Failure) {
        scratch.removeAll(keepingCapacity: true)
        scratch += prefix
        name.append(to: &scratch)
        try scratch.withUnsafeBufferPointer { (piece) throws(Failure) in try append(piece) }
    }
}

/// Counts the bytes instead of keeping them.
private struct CountingSink: SpliceSink {
    typealias Failure = Never
    var count = 0
    var isFull: Bool { false }
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) { count += bytes.count }
    /// Counted without spelling the name out.
    mutating func append(prefix: [UInt8], name: LocalName, spelledIn scratch: inout [UInt8]) { count += prefix.count + name.byteCount }
}

/// Keeps the bytes, up to `limit`.
private struct ArraySink: SpliceSink {
    typealias Failure = Never
    var bytes: [UInt8] = []
    let limit: Int

    init(capacity: Int, limit: Int = .max) {
        bytes.reserveCapacity(capacity)
        self.limit = limit
    }

    var isFull: Bool { bytes.count >= limit }

    mutating func append(_ piece: UnsafeBufferPointer<UInt8>) {
        let room = limit - bytes.count
        bytes.append(contentsOf: piece.count <= room ? piece : UnsafeBufferPointer(rebasing: piece[0..<room]))
    }
}

/// Gathers small pieces into about 64 KB before handing them on: a page of 100,000 images would
/// otherwise be 200,000 writes.
private struct PieceSink<Failure: Error>: SpliceSink {
    static var pieceSize: Int { 1 << 16 }
    let write: (UnsafeRawBufferPointer) throws(Failure) -> Void
    var buffer: [UInt8] = []
    var isFull: Bool { false }

    /// - Parameter capacity: the output's length: a small page's buffer is no larger than it.
    ///   (The CLI has glibc map every block of 64 KB and more, so a full piece for each of a
    ///   site's pages was a `mmap`, page faults and a `munmap` each.)
    init(write: @escaping (UnsafeRawBufferPointer) throws(Failure) -> Void, capacity: Int) {
        self.write = write
        buffer.reserveCapacity(min(capacity, Self.pieceSize))
    }

    mutating func append(_ piece: UnsafeBufferPointer<UInt8>) throws(Failure) {
        if buffer.count + piece.count > Self.pieceSize {
            try flush()
            if piece.count >= Self.pieceSize / 4 {
                try write(UnsafeRawBufferPointer(piece))
                return
            }
        }
        buffer.append(contentsOf: piece)
    }

    mutating func flush() throws(Failure) {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBufferPointer { (piece) throws(Failure) in try write(UnsafeRawBufferPointer(piece)) }
        buffer.removeAll(keepingCapacity: true)
    }
}
