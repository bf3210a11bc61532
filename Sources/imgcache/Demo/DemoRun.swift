#if CommandLine
import Foundation
import ImgCache

/// The live pipeline of `imgcache demo`, what `fetch --mode live` does for one page URL: write
/// the fully rewritten page at once, download its images with progress and events, fire the
/// refresh, write the manifest. Only loopback hosts are contacted, never through a proxy.
struct DemoRun: Sendable {
    /// The output folder; images go to `<out>/images`.
    let out: String
    /// Seconds of idle downloads before a refresh.
    let debounce: Double
    /// `--events`.
    let events: EventsFormat?
    /// `--quiet`: no progress display.
    let quiet: Bool
    /// Tells the person watching what is going on (nothing when quiet).
    let narrate: @Sendable (String) -> Void

    /// What the run did.
    struct Outcome: Sendable {
        /// Images that could not be localised, by URL.
        var failures: [DownloadOutcome]
        /// Distinct images now in the cache.
        var localised: Int
        /// Distinct images the page references.
        var total: Int
        /// Seconds from the page request to the end of the downloads.
        var elapsed: Double
        /// Whether the manifest could not be written.
        var manifestFailed: Bool
    }

    /// Why the run could not get going (the page or the output).
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Hosts the demo may download from: its own server.
    static let loopbackHosts: Set<String> = ["127.0.0.1"]

    func run(pageURL: String) async throws -> Outcome {
        let start = ContinuousClock.now
        let cacheFolder = (out as NSString).appendingPathComponent("images")
        var settings = FetchSettings(
            out: out, cacheFolder: cacheFolder,
            manifestPath: (out as NSString).appendingPathComponent("imgcache-manifest.json"),
            rewriteOptions: RewriteOptions(referenceStyle: .relativePath(RelativePath.from(folder: out, to: cacheFolder))))
        settings.downloadPolicy = DownloadPolicy(timeout: .seconds(20), allowedHosts: Self.loopbackHosts)
        settings.printsEvents = events != nil
        settings.quiet = quiet
        settings.debounce = .seconds(debounce)
        let session: FetchSession
        do {
            session = try FetchSession(settings: settings)
            // The port, hence every image URL and name, changes from run to run: start empty so the
            // folder holds exactly this run's images, all of them really downloaded.
            try session.store.clear()
        } catch {
            throw Failure(description: "\(error)")
        }
        let run: FileLocalization
        do {
            run = try await session.localize(
                pageURL, mode: .live,
                imagesFound: { [narrate] count in
                    narrate("\(count) distinct images referenced; writing the page before downloading them (live mode)")
                },
                pageWritten: { [narrate] rewritten, destination in
                    let rewrittenCount = rewritten.references.count(where: \.rewritten)
                    narrate("wrote \(destination) after " + Self.seconds(since: start)
                            + ": all \(rewrittenCount) image references already point into images/; downloading…")
                })
        } catch {
            await session.finish()
            throw Failure(description: "cannot localise the demo page: \(error)")
        }
        let refresh = await session.finish()
        let elapsed = (ContinuousClock.now - start) / .seconds(1)
        if let refresh {
            narrate("refresh fired (\(refresh.reason.rawValue)): \(refresh.downloaded) downloaded, \(refresh.failed.count) failed "
                    + "— a viewer showing the page would reload it now")
        }
        var manifestFailed = false
        do {
            try session.writeManifest([run.manifestRecord])
        } catch {
            Diagnostics.error("cannot write the manifest: \(error)")
            manifestFailed = true
        }
        return Outcome(failures: run.failures, localised: run.outcomes.values.filter(\.isCached).count,
                       total: run.outcomes.count, elapsed: elapsed, manifestFailed: manifestFailed)
    }

    private static func seconds(since start: ContinuousClock.Instant) -> String {
        String(format: "%.2f s", (ContinuousClock.now - start) / .seconds(1))
    }
}
#endif
