import FuzzDriver
import FuzzProperties

/// The `rewriter` fuzz target's entry point (see `FuzzTarget.rewriter`).
@_cdecl("rewriter_main")
func rewriterMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    runFuzzer(argc, argv) { data, size in check(.rewriter, data, size) }
}
