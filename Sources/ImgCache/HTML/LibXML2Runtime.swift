#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// The libxml2 this process runs, as far as the scanner's input shortcuts depend on it.
enum LibXML2Runtime {
    /// Whether libxml2 parses HTML the way ``RawTextContentSkip`` and ``UnreadInputCut``
    /// reproduce: 2.9.12–2.9.14, whose start-tag, attribute, content and script functions are the
    /// same for what the shortcuts rely on (checked in libxml2's history and Debian's patched
    /// source). 2.9.10–11 stop script content at control characters; 2.10 and later restructure
    /// the content loop. Any other version reads everything itself, the path the tests also run.
    static let allowsInputShortcuts: Bool = {
        guard let version else { return false }
        return (20912...20914).contains(version)
    }()

    /// libxml2's version as a number (`20914` for 2.9.14), from its exported `xmlParserVersion`
    /// string: the header's `LIBXML_VERSION` says what the code was compiled against, which on
    /// Apple platforms need not be the library the OS loads. (The variable is a macro over
    /// `__xmlParserVersion()` in threaded builds, a function 2.14 removed; the symbol itself is
    /// exported by every version.)
    static let version: Int? = {
        #if canImport(Darwin)
        // <dlfcn.h>'s RTLD_DEFAULT, `((void *) -2)`: a cast that Swift does not import.
        let handle = UnsafeMutableRawPointer(bitPattern: -2)
        #else
        let handle = dlopen(nil, RTLD_LAZY)
        #endif
        guard let symbol = dlsym(handle, "xmlParserVersion") else { return nil }
        guard let text = symbol.assumingMemoryBound(to: UnsafePointer<CChar>?.self).pointee else { return nil }
        let digits = String(cString: text).prefix { $0.isASCII && $0.isNumber }
        return Int(digits)
    }()
}
