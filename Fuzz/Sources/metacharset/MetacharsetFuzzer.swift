import FuzzDriver
import FuzzProperties

/// The `metacharset` fuzz target's entry point (see `FuzzTarget.metacharset`).
@_cdecl("metacharset_main")
func metacharsetMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv) { data, size in check(.metacharset, data, size) }
}
