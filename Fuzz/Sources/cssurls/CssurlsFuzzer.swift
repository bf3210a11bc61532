import FuzzDriver
import FuzzProperties

/// The `cssurls` fuzz target's entry point (see `FuzzTarget.cssurls`).
@_cdecl("cssurls_main")
func cssurlsMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv) { data, size in check(.cssurls, data, size) }
}
