#if CommandLine
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns Ctrl-C (SIGINT) and SIGTERM into something a long-running command can await, so that it
/// stops its downloads and waits for the writes under way instead of dying mid-write and leaving
/// temporary files behind. A second signal while stopping ends the process at once.
final class StopSignals: @unchecked Sendable {
    // Set once in `init`, read-only afterwards.
    private var sources: [any DispatchSourceSignal] = []
    private let received: AsyncStream<Int32>

    /// Takes over SIGINT and SIGTERM for the rest of the process.
    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        received = stream
        let queue = DispatchQueue(label: "imgcache.stop-signals")
        var count = 0  // touched on `queue` only
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                count += 1
                if count > 1 { _exit(128 + number) }
                continuation.yield(number)
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Returns the first signal received (suspending until one is).
    func wait() async -> Int32? {
        for await number in received { return number }
        return nil
    }
}
#endif
