import ImgCacheURLs
import ImgCacheMarkup
import ImgCacheStore
/// What a ``LocalizationSession`` did with a ``LocalizationPlan``.
public struct SiteLocalization: Sendable {
    /// One result per input, in the plan's order: the localised file, or why it could not be
    /// read, fetched or written.
    public var results: [Result<FileLocalization, any Error>]
    /// The site files that could not be copied.
    public var copyFailures: [any Error]

    /// The files localised, in the plan's order.
    public var localized: [FileLocalization] {
        results.compactMap { try? $0.get() }
    }
}

extension LocalizationSession {
    /// Localises every input of `plan` and copies its site files.
    ///
    /// Every file shares the session's downloader (each distinct image is fetched once, and the
    /// outstanding count and the refresh cover the whole run); `filesAtOnce` files are read and
    /// rewritten at once, so that memory stays flat however large the site, and each file is
    /// written as soon as its own images are settled. Site files are copied meanwhile. A
    /// stylesheet that declares no encoding is read in the encoding of a page that links it.
    /// - Parameters:
    ///   - plan: the pages, stylesheets and site files, and where their copies go.
    ///   - mode: `.build` or `.live`, as for one file.
    ///   - filesAtOnce: how many files are read and rewritten at once (`--parallel`).
    ///   - imagesFound: told how many distinct images a file has, before any is fetched.
    ///   - written: told each time a file has been written.
    public func localize(
        _ plan: LocalizationPlan, mode: FetchMode, filesAtOnce: Int = 16,
        imagesFound: (@Sendable (LocalizationInput, Int) -> Void)? = nil,
        written: (@Sendable (LocalizationInput, RewriteResult) -> Void)? = nil
    ) async -> SiteLocalization {
        // Pages first: a stylesheet that needs a linking page's encoding waits for every page to
        // be read, and must not hold a slot that a page needs.
        let order = plan.inputs.indices.sorted { (plan.inputs[$0].kind == .stylesheet ? 1 : 0, $0) < (plan.inputs[$1].kind == .stylesheet ? 1 : 0, $1) }
        // The refresh covers the whole run: while files are still to be read, the downloads of
        // those read so far settling (which a short debounce, or a slow read, lets happen) is not
        // the end of the run's downloads.
        let hold = notifier.hold()
        defer { hold.release() }
        store.expectLooks(byDocuments: plan.inputs.count)
        let referrers = StylesheetReferrers(pages: plan.inputs.count { $0.kind != .stylesheet })
        let window = max(1, filesAtOnce)
        async let copyFailures = copy(plan.copies)
        var results = [Result<FileLocalization, any Error>?](repeating: nil, count: plan.inputs.count)
        await withTaskGroup(of: (Int, Result<FileLocalization, any Error>).self) { group in
            var next = 0
            func startNext() -> Bool {
                guard next < order.count else { return false }
                let index = order[next]
                let input = plan.inputs[index]
                next += 1
                let found = Self.bind(imagesFound, to: input)
                let wrote = Self.bind(written, to: input)
                group.addTask {
                    do {
                        let file = try await self.localize(
                            input, mode: mode, referringEncoding: { url in await referrers.encoding(for: url) },
                            imagesFound: found, pageReady: wrote)
                        if input.kind != .stylesheet { await referrers.pageDone(file) }
                        return (index, .success(file))
                    } catch {
                        if input.kind != .stylesheet { await referrers.pageDone(nil) }
                        return (index, .failure(error))
                    }
                }
                return true
            }
            for _ in 0..<window where !startNext() { break }
            for await (index, result) in group {
                results[index] = result
                _ = startNext()
            }
        }
        return SiteLocalization(results: results.map { $0! }, copyFailures: await copyFailures)
    }

    /// A per-file callback for one file of the run.
    private static func bind<Value>(_ report: (@Sendable (LocalizationInput, Value) -> Void)?,
                                    to input: LocalizationInput) -> (@Sendable (Value) -> Void)? {
        guard let report else { return nil }
        return { value in report(input, value) }
    }

    private func copy(_ copies: [SiteFileCopy]) async -> [any Error] {
        var failures: [any Error] = []
        for copy in copies {
            do {
                try await self.copy(copy)
            } catch {
                failures.append(error)
            }
        }
        return failures
    }
}

/// Which page links which stylesheet, in what encoding: a stylesheet that declares no encoding is
/// read in the encoding of a page that links it, as browsers do. Such a stylesheet waits until
/// every page of the run has been read; one that declares its encoding (or is ASCII) never asks.
actor StylesheetReferrers {
    private var encodings: [String: HTMLEncoding] = [:]
    private var pagesLeft: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// - Parameter pages: how many pages will report (each exactly once, read or not).
    init(pages: Int) {
        pagesLeft = pages
    }

    /// A page was read (`file` non-nil) or could not be (nil).
    func pageDone(_ file: FileLocalization?) {
        if let file {
            for url in file.linkedStylesheets where encodings[url] == nil { encodings[url] = file.encoding }
        }
        pagesLeft -= 1
        if pagesLeft <= 0 {
            for continuation in waiting { continuation.resume() }
            waiting = []
        }
    }

    /// The encoding of the first page (in input order of completion) that links `url`, once every page is read.
    func encoding(for url: BrowserURL?) async -> HTMLEncoding? {
        if pagesLeft > 0 { await withCheckedContinuation { waiting.append($0) } }
        return url.flatMap { encodings[$0.serializedWithoutFragment] }
    }
}
