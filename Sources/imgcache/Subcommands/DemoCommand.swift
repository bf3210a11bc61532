#if CommandLine
import ArgumentParser
import Foundation
import ImgCache
import ImgCacheHTTPClient

/// `imgcache demo`: the live pipeline end to end against a bundled article page, served by a
/// real HTTP server on the loopback interface, so it needs no network.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Serves a bundled article on 127.0.0.1 and makes it work offline, live.",
        discussion: """
            Starts an HTTP server on 127.0.0.1 (an ephemeral port) that serves a bundled article with a \
            few images delayed and one missing on purpose, then runs `fetch --mode live` on its \
            index.html: the page is written fully rewritten at once, the images are downloaded with \
            progress, a refresh is fired, the manifest is written, and the server stops. Nothing \
            leaves the machine. The cache folder <out>/images is emptied first, so every run downloads.

            Exit status: 0 when every image but the one missing by design was localised; 2 when \
            another image failed; 1 when the site could not be read, the server not started, or the \
            output not written; 64 for a usage error.
            """
    )

    @Option(help: "Output folder: index.html, images/ and the manifest go here.")
    var out: String = "imgcache-demo"

    @Option(help: "The site to serve: a folder with an index.html (default: the site bundled in this binary).")
    var site: String?

    @Option(help: "Seconds downloads must have been idle before a refresh event (0 allowed).")
    var debounce: Double = 2

    @Option(help: "Print every event (started, finished, failed, refresh) on standard output: ndjson.")
    var events: EventsFormat?

    @Flag(help: "No progress display and no narration; unexpected failures still go to standard error.")
    var quiet = false

    func validate() throws {
        if !(debounce >= 0) { throw ValidationError("--debounce cannot be negative.") }
        if out.isEmpty { throw ValidationError("--out needs a folder.") }
    }

    func run() async throws {
        let narrate: @Sendable (String) -> Void = { [quiet] in if !quiet { Diagnostics.note("imgcache demo: " + $0) } }
        let demoSite: DemoSite
        do {
            demoSite = try site.map(DemoSite.init(folder:)) ?? DemoSite.bundled()
        } catch {
            Diagnostics.error("cannot serve \(site ?? "the bundled site"): \(error)")
            throw ExitCode.failure
        }
        let scenario = DemoScenario.bundled
        let server: DemoServer
        do {
            server = try await DemoServer.start(site: demoSite, scenario: scenario)
        } catch {
            Diagnostics.error("cannot start the demo server on 127.0.0.1: \(error)")
            throw ExitCode.failure
        }
        narrate("serving \(demoSite.origin) (\(demoSite.files.count) files) at \(server.url(""))")
        narrate(scenarioSummary(scenario, site: demoSite))

        let outcome: DemoRun.Outcome
        do {
            outcome = try await DemoRun(out: out, debounce: debounce, events: events, quiet: quiet, narrate: narrate)
                .run(pageURL: server.pageURL)
        } catch {
            await server.shutdown()
            Diagnostics.error("\(error)")
            throw ExitCode.failure
        }
        let requests = server.requestCount
        await server.shutdown()

        let missingURL = server.url(scenario.missing)
        let expected = outcome.failures.filter { $0.url == missingURL }
        let unexpected = outcome.failures.filter { $0.url != missingURL }
        for failure in expected {
            narrate("\(scenario.missing) failed as planned (\(failure.failure?.description ?? "error")): it is missing by design, "
                    + "so the page shows one broken image.")
        }
        for failure in unexpected {
            Diagnostics.note("imgcache: failed: \(failure.url): \(failure.failure?.description ?? "unknown error")")
        }
        narrate("\(outcome.localised) of \(outcome.total) images are local, \(requests) requests to 127.0.0.1, "
                + String(format: "%.1f s; ", outcome.elapsed) + "the server is stopped.")
        if !quiet { Diagnostics.noteLines(DemoInstructions(out: out).text) }
        if outcome.manifestFailed { throw ExitCode.failure }
        if !unexpected.isEmpty { throw ExitCode(2) }
    }

    private func scenarioSummary(_ scenario: DemoScenario, site: DemoSite) -> String {
        let present = Set(site.files.map(\.path))
        let slow = scenario.delays.filter { present.contains($0.key) }.sorted { $0.value < $1.value }.map {
            "\(($0.key as NSString).lastPathComponent) +\(Int($0.value / .milliseconds(1))) ms"
        }
        let delays = slow.isEmpty ? "no image delayed" : "delayed: " + slow.joined(separator: ", ")
        return "\(delays); \(scenario.missing) answers 404 on purpose"
    }
}
#endif
