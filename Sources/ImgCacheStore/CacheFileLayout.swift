import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where each file of a cache folder lives, and what a file found there is.
///
/// ```
/// <folder>/
///   .imgcache.lock                   empty; `flock`ed for exclusive sections
///   .imgcache.index                  every entry's metadata, an append-only log (CacheIndexFile)
///   .imgcache.lookup                 where each entry's record is in the index (CacheLookupTable)
///   3f2a…c1.png                      image bytes, named by LocalImageNaming
///   .3f2a…c1.png.tmp-<pid>-<random>  a write in progress, or left by a killed process
///   3f/3f2a…c1.png                   the same with fan-out: an image and its temporary
///                                    files share the two-hex-digit subfolder
/// ```
///
/// One file per image and nothing else beside it: creating a file is most of what storing an
/// image costs, so metadata lives in the one index rather than in a file per image.
/// Hidden names are never entries, so the lock, the index and temporary files cannot be
/// mistaken for images; temporary names follow the same pattern as `AtomicFile`'s.
struct CacheFileLayout: Sendable {
    /// The cache folder, without a trailing slash.
    let folder: String

    static let lockFileName = ".imgcache.lock"
    static let indexFileName = ".imgcache.index"
    static let temporaryMarker = ".tmp-"

    init(folder: String) {
        var folder = folder
        while folder.count > 1, folder.hasSuffix("/") { folder.removeLast() }
        self.folder = folder
    }

    var lockPath: String { folder + "/" + Self.lockFileName }
    var indexPath: String { folder + "/" + Self.indexFileName }
    var lookupTablePath: String { folder + "/" + CacheLookupTable.fileName }

    func imagePath(_ localName: String) -> String { folder + "/" + localName }

    /// The fan-out subfolder a local name lives in, or nil for the top level.
    func subfolderPath(_ localName: String) -> String? {
        guard let slash = localName.firstIndex(of: "/") else { return nil }
        return folder + "/" + localName[..<slash]
    }

    /// A fresh temporary name in the same folder as `finalPath`: hidden, and unique per process
    /// and attempt so that concurrent writers never share one.
    static func temporaryPath(beside finalPath: String) -> String {
        let (folder, name) = finalPath.splitAtLastSlash()
        return folder + "." + name + temporaryMarker + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    // MARK: Recognising names

    /// Whether `name` is a local name this cache could have written: 64 lowercase hex digits, a
    /// dot and a short extension without dots or slashes, optionally inside the two-hex-digit
    /// fan-out folder that matches its first two digits. Anything else — `..`, absolute paths,
    /// other folders — is rejected, which is what makes ``ImageCacheStore/contents(forLocalName:)``
    /// safe to call with a path taken from a request.
    static func isValidLocalName(_ name: String) -> Bool {
        name.withUTF8Bytes { isValidLocalName(utf8: $0) }
    }

    /// ``isValidLocalName(_:)`` for a name's UTF-8 bytes.
    static func isValidLocalName(utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        var start = 0
        if utf8.count > 3, utf8[2] == UInt8(ascii: "/") {
            guard isLowerHex(utf8[0]), isLowerHex(utf8[1]), utf8.count > 5,
                  utf8[3] == utf8[0], utf8[4] == utf8[1] else { return false }
            start = 3
        }
        let rest = utf8[start...]
        guard rest.count > 65, rest.prefix(64).allSatisfy(isLowerHex),
              rest[rest.startIndex + 64] == UInt8(ascii: ".") else { return false }
        let ext = rest.dropFirst(65)
        return (1...32).contains(ext.count) && ext.allSatisfy(isExtensionByte)
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }

    private static func isExtensionByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "+")
    }

    /// What a file found in the cache folder is.
    enum FileKind: Equatable {
        case image(localName: String)
        case temporary
        case unrelated
    }

    /// Classifies `name`, found at the top level (`subfolder` nil) or in a fan-out subfolder.
    static func kind(ofFileNamed name: String, inSubfolder subfolder: String?) -> FileKind {
        if name.hasPrefix(".") {
            return name.contains(temporaryMarker) ? .temporary : .unrelated
        }
        let localName = (subfolder.map { $0 + "/" } ?? "") + name
        return isValidLocalName(localName) ? .image(localName: localName) : .unrelated
    }

    /// Whether a top-level name is a fan-out subfolder.
    static func isFanOutFolderName(_ name: String) -> Bool {
        let utf8 = Array(name.utf8)
        return utf8.count == 2 && utf8.allSatisfy(isLowerHex)
    }
}
