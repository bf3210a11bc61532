#if CommandLine
import Foundation
import ImgCache
import ImgCacheHTTPClient
import ImgCacheCurl

/// A ``LocalizationSession`` as `fetch`, `watch` and `demo` run it: on the AsyncHTTPClient
/// transport, with its events printed (`--events`), shown as progress, and handed to the
/// `--on-refresh` hook, in the order they happen.
final class FetchSession: Sendable {
    let settings: FetchSettings
    let session: LocalizationSession
    private let output: EventOutput

    /// Why the session could not start.
    struct StartError: Error, CustomStringConvertible {
        let description: String
    }

    init(settings: FetchSettings) throws {
        self.settings = settings
        let store: ImageCacheStore
        do {
            store = try ImageCacheStore(directory: settings.cacheFolder, naming: settings.naming,
                                        policy: settings.cachePolicy)
        } catch {
            throw StartError(description: "cannot use the cache folder \(settings.cacheFolder): \(error)")
        }
        let transport: any ImageTransport
        do {
            // No connection attempt outlives --timeout: one still going (to a server whose TLS
            // handshake stalls, say) after its image has failed would hold the end of the run.
            transport = try HTTPClientChoice.makeTransport(
                settings.httpClient, trust: settings.trust, proxy: settings.proxy, connectTimeout: min(.seconds(10), settings.downloadPolicy.timeout),
                maxConnectionsPerHost: settings.downloadPolicy.perHostConcurrency)
        } catch let error as CertificateTrustError {
            let option = settings.trust.additionalCAFiles.contains(error.path) ? "--cacert" : "SSL_CERT_FILE/SSL_CERT_DIR"
            throw StartError(description: "\(option) \(error)")
        } catch let error as CurlUnavailableError {
            throw StartError(description: "--http-client curl: \(error)")
        }
        let style = settings.rewriteOptions.referenceStyle
        output = EventOutput(printer: settings.printsEvents ? EventPrinter(localPath: { style.reference(to: $0) }) : nil,
                             progress: settings.quiet ? nil : ProgressDisplay(),
                             hook: settings.onRefresh.map(RefreshHook.init(command:)))
        let configuration = LocalizationSession.Configuration(
            store: store, transport: transport, downloadPolicy: settings.downloadPolicy, rewriting: settings.rewriteOptions,
            debounce: settings.debounce, maxWait: settings.maxWait)
        let output = self.output
        session = LocalizationSession(configuration, onEvent: output.isActive ? output.record : nil)
    }

    var store: ImageCacheStore { session.store }

    /// Advice for failures a person can fix with an option: certificates from a CA that is not trusted.
    static func hint(for failures: [DownloadOutcome]) -> String? {
        failures.lazy.compactMap { $0.failure.flatMap(hint(for:)) }.first
    }

    /// ``hint(for:)`` for one failure.
    static func hint(for failure: DownloadFailure) -> String? {
        guard failure.certificateProblem?.mayBeFixedByTrustingItsCA == true else { return nil }
        return "to trust a company's or a test server's CA, pass its certificate with --cacert FILE (PEM)"
    }

    /// Localises every input of `plan` (`--parallel` files at once) and copies its site files;
    /// warns, file by file in the plan's order, of what their rewriting noticed.
    func run(_ plan: LocalizationPlan, mode: FetchMode, filesAtOnce: Int) async -> SiteLocalization {
        let output = self.output
        let site = await session.localize(
            plan, mode: mode, filesAtOnce: filesAtOnce,
            imagesFound: { _, count in output.imagesFound(count) },
            written: { input, rewritten in
                output.written(input, rewritten)
                Self.handBackMemory(after: rewritten)
            })
        for file in site.localized { Self.warn(file) }
        return site
    }

    /// The warnings of a file's rewriting, one line each, named by the file.
    private static func warn(_ file: FileLocalization) {
        for warning in file.warnings { Diagnostics.warn("\(file.input.name): \(warning)") }
    }

    /// Localises one input, reporting its images and its writes as a run of the plan does.
    func localize(_ input: LocalizationInput, mode: FetchMode,
                  imagesFound: (@Sendable (Int) -> Void)? = nil,
                  pageWritten: (@Sendable (RewriteResult, String) -> Void)? = nil) async throws -> FileLocalization {
        let output = self.output
        let file = try await session.localize(
            input, mode: mode,
            imagesFound: { count in
                output.imagesFound(count)
                imagesFound?(count)
            },
            pageReady: { rewritten in
                output.written(input, rewritten)
                Self.handBackMemory(after: rewritten)
                pageWritten?(rewritten, input.output ?? "")
            })
        Self.warn(file)
        return file
    }

    /// After a large page (4 MB or more) is written, hands the memory its parse and its copy
    /// left free in the heap back to the system, so that the run's memory does not keep the peak.
    private static func handBackMemory(after page: RewriteResult) {
        if page.byteCount >= 4 << 20 { MallocTuning.handBackFreedMemory() }
    }

    /// ``localize(_:mode:imagesFound:pageWritten:)`` for one argument given on its own.
    func localize(_ argument: String, mode: FetchMode,
                  imagesFound: (@Sendable (Int) -> Void)? = nil,
                  pageWritten: (@Sendable (RewriteResult, String) -> Void)? = nil) async throws -> FileLocalization {
        try await localize(.single(argument, out: settings.out, baseURL: settings.baseURL), mode: mode,
                           imagesFound: imagesFound, pageWritten: pageWritten)
    }

    /// "page.html: 20 images (18 downloaded, 2 failed) -> out/page.html"
    static func summaryLine(_ file: FileLocalization) -> String {
        let counts = Dictionary(grouping: file.outcomes.values, by: \.status).mapValues(\.count)
        let summary = [DownloadStatus.downloaded, .revalidated, .cached, .failed, .skipped]
            .compactMap { status in counts[status].map { "\($0) \(status.rawValue)" } }
            .joined(separator: ", ")
        return "\(file.input.name): \(file.outcomes.count) images (\(summary.isEmpty ? "none" : summary)) -> \(file.input.output ?? "")"
    }

    /// Copies a site file into the output as it is.
    func copy(_ copy: SiteFileCopy) async throws {
        try await session.copy(copy)
    }

    /// Writes the manifest for `pages` (atomically).
    func writeManifest(_ pages: [FetchManifest.Page]) throws {
        try FetchManifest(cacheDirectory: settings.cacheFolder, pages: pages).write(toFile: settings.manifestPath)
    }

    /// Stops the downloads under way: they end as failed (`cancelled`) and nothing half-written is left.
    func cancelDownloads() async {
        await session.cancelDownloads()
    }

    /// Declares that no more pages will come, waits for the final refresh (at once if nothing is
    /// downloading) and for its hook, ends the progress display and closes the connections.
    @discardableResult
    func finish() async -> RefreshSummary? {
        let refresh = await session.finish()
        await output.finish()
        return refresh
    }
}
#endif
