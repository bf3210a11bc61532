import ImgCache

/// Runs a ``FetchPlan`` through one ``FetchSession``: every page and stylesheet shares the
/// session's downloader (each distinct image is fetched once, and the outstanding count and the
/// refresh cover the whole run), a bounded number of files are read and rewritten at once so that
/// memory stays flat however large the site, and each file is written as soon as its own images
/// are settled. Site files to copy are copied meanwhile.
struct FetchRunner {
    let session: FetchSession
    /// Files in progress at once.
    let filesAtOnce: Int

    /// What became of each input, in the plan's order.
    enum Result: Sendable {
        case localized(FetchSession.PageRun)
        case failed(any Error)
    }

    /// Localises every input of `plan` and copies its site files.
    /// - Returns: one result per input, in the plan's order, and the copies that failed.
    func run(_ plan: FetchPlan, mode: FetchMode) async -> (results: [Result], copyFailures: [any Error]) {
        // Pages first: a stylesheet that needs a linking page's encoding waits for every page to
        // be read, and must not hold a slot that a page needs.
        let order = plan.inputs.indices.sorted { (plan.inputs[$0].kind == .stylesheet ? 1 : 0, $0) < (plan.inputs[$1].kind == .stylesheet ? 1 : 0, $1) }
        let referrers = StylesheetReferrers(pages: plan.inputs.count { $0.kind != .stylesheet })
        let session = self.session
        let window = max(1, filesAtOnce)
        async let copyFailures = Self.copy(plan.copies)
        var results = [Result?](repeating: nil, count: plan.inputs.count)
        await withTaskGroup(of: (Int, Result).self) { group in
            var next = 0
            func startNext() -> Bool {
                guard next < order.count else { return false }
                let index = order[next]
                let input = plan.inputs[index]
                next += 1
                group.addTask {
                    do {
                        let run = try await session.localize(input, mode: mode, referringEncoding: { await referrers.encoding(for: $0) })
                        if input.kind != .stylesheet { await referrers.pageDone(run) }
                        return (index, .localized(run))
                    } catch {
                        if input.kind != .stylesheet { await referrers.pageDone(nil) }
                        return (index, .failed(error))
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
        return (results.map { $0! }, await copyFailures)
    }

    private static func copy(_ copies: [FetchCopy]) async -> [any Error] {
        var failures: [any Error] = []
        for copy in copies {
            do {
                try await FetchSession.copy(copy)
            } catch {
                failures.append(error)
            }
        }
        return failures
    }
}
