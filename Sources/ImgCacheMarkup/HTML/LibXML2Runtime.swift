#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// The libxml2 this process runs, as far as the scanner's input shortcuts depend on it.
enum LibXML2Runtime {
    /// The one switch for the scanner's input shortcuts (``RawTextContentSkip`` and
    /// ``UnreadInputCut``): whether this libxml2 is one the differential tests have run them
    /// against, which compare every scan with and without them. That is upstream 2.9.14 only
    /// (Debian 12's, where the tests run). 2.9.12–13 read the same way in libxml2's history but no
    /// test has run them; 2.9.10–11 stop script content at control characters; 2.10 and later
    /// restructure the content loop. Any other version reads everything itself, the path the
    /// tests also run.
    ///
    /// Never on Apple platforms: their libxml2 is Apple's own build, patched and reporting 2.9.13
    /// on recent macOS and iOS, whose `HTMLparser.c` no test of this project has run the shortcuts
    /// against. Until the Mac check (Scripts/check-apple.sh) runs the rewriting suites there with
    /// them on, Apple platforms read everything themselves.
    ///
    /// When to remove them: once the Linux distributions the package supports all ship libxml2
    /// 2.10 or later (Debian 13 ships 2.12), the shortcuts never run; delete both types, this
    /// switch and their tests.
    static let allowsInputShortcuts: Bool = allowsInputShortcuts(version: version, onApplePlatform: isApplePlatform)

    /// The gate's answer for a libxml2 of `version` (as ``version`` gives it), on an Apple
    /// platform or not.
    static func allowsInputShortcuts(version: Int?, onApplePlatform: Bool) -> Bool {
        guard !onApplePlatform, let version else { return false }
        return version == 20914
    }

    /// Whether this is an Apple platform, whose libxml2 is Apple's.
    static var isApplePlatform: Bool {
        #if canImport(Darwin)
        true
        #else
        false
        #endif
    }

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
