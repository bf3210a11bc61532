public import CLibFuzzer
public import FuzzProperties
#if canImport(Glibc)
import Glibc
#endif

/// Hands control to libFuzzer, which calls `callback` with each input.
///
/// SwiftPM renames an executable's entry point to `<target>_main`; each fuzz target defines that
/// function itself (with `@_cdecl`) and calls this, so libFuzzer's own `main` is not needed.
public func runFuzzer(
    _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32 {
    var argc = argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    return LLVMFuzzerRunDriver(&argc, &argv, callback)
}

/// Runs `target`'s property checks on one input; a violation is reported and aborts the process,
/// which libFuzzer records as a crash (the input goes to the artifact folder).
public func check(_ target: FuzzTarget, _ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    do {
        try target.check(input)
    } catch {
        var message = "PROPERTY VIOLATION (\(target.rawValue)): \(error.description)\n"
        message.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
        abort()
    }
    return 0
}
