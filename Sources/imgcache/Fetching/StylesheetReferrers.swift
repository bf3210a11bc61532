import ImgCache

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

    /// A page was read (`run` non-nil) or could not be (nil).
    func pageDone(_ run: FetchSession.PageRun?) {
        if let run {
            for url in run.linkedStylesheets where encodings[url] == nil { encodings[url] = run.encoding }
        }
        pagesLeft -= 1
        if pagesLeft <= 0 {
            for continuation in waiting { continuation.resume() }
            waiting = []
        }
    }

    /// The encoding of the first page (in input order of completion) that links `url`, once every page is read.
    func encoding(for url: WebURL?) async -> HTMLEncoding? {
        if pagesLeft > 0 { await withCheckedContinuation { waiting.append($0) } }
        return url.flatMap { encodings[$0.serializedWithoutFragment] }
    }
}
