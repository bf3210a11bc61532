/// Keeps a rewritten page read in the encoding its original was read in.
///
/// Browsers look for `<meta charset>` in a page's first 1024 bytes only. Local paths are longer
/// or shorter than the URLs they replace, so rewriting there can push a declaration out of that
/// window (the local copy then reads as windows-1252) or pull one in. Pages whose encoding comes
/// from a byte order mark or the transport are not affected: then the prescan is never asked.
enum EncodingDeclarationWindow {
    /// How many bytes at the start of a page the prescan reads.
    static var size: Int { MetaCharsetPrescan.byteLimit }

    /// Whether `output` needs checking: its encoding would come from the prescan or after it.
    static func applies(to source: EncodingSource) -> Bool {
        source != .byteOrderMark && source != .transport
    }

    /// Whether the prescan finds in `output` (or its first ``size`` bytes: all the prescan reads)
    /// what it found in `page`.
    static func keepsDeclaration(of page: [UInt8], in output: [UInt8]) -> Bool {
        let before = page.withUnsafeBufferPointer { MetaCharsetPrescan.prescan($0) }
        let after = output.withUnsafeBufferPointer { MetaCharsetPrescan.prescan($0) }
        return before == after
    }
}
