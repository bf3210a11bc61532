import FuzzDriver
import FuzzProperties

/// The `indexline` fuzz target's entry point (see `FuzzTarget.indexline`).
@_cdecl("indexline_main")
func indexlineMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv) { data, size in check(.indexline, data, size) }
}
