import FuzzDriver
import FuzzProperties

/// The `url` fuzz target's entry point (see `FuzzTarget.url`).
@_cdecl("url_main")
func urlMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv) { data, size in check(.url, data, size) }
}
