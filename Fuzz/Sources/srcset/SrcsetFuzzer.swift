import FuzzDriver
import FuzzProperties

/// The `srcset` fuzz target's entry point (see `FuzzTarget.srcset`).
@_cdecl("srcset_main")
func srcsetMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv) { data, size in check(.srcset, data, size) }
}
