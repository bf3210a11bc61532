#if CommandLine
import ImgCache

/// Everything a fetch reports as it goes, in the order it happens: image events and refreshes
/// from the notifier, pages written, images found. One task takes them in turn, prints them,
/// updates the progress display, and awaits the `--on-refresh` hook before the next, so that a
/// refresh's command has finished before anything later is reported.
final class EventOutput: Sendable {
    private enum Item: Sendable {
        case event(ImageEvent)
        case imagesFound(Int)
        case written(input: String, output: String, references: Int, rewritten: Int)
    }

    private let continuation: AsyncStream<Item>.Continuation
    private let consumer: Task<Void, Never>
    private let progress: ProgressDisplay?
    private let printsPages: Bool
    /// Whether anything is reported at all (`--quiet` without `--events` or a hook: nothing).
    let isActive: Bool

    init(printer: EventPrinter?, progress: ProgressDisplay?, hook: RefreshHook?) {
        let (stream, continuation) = AsyncStream.makeStream(of: Item.self)
        self.continuation = continuation
        self.progress = progress
        printsPages = printer != nil
        isActive = printer != nil || progress != nil || hook != nil
        consumer = Task {
            for await item in stream {
                switch item {
                case .event(let event):
                    printer?.print(event)
                    progress?.record(event)
                    if case .refresh(let summary) = event { await hook?.run(summary) }
                case .imagesFound(let count):
                    progress?.addImages(count)
                case .written(let input, let output, let references, let rewritten):
                    printer?.printPage(input: input, output: output, references: references, rewritten: rewritten)
                }
            }
        }
    }

    /// The notifier's callback.
    func record(_ event: ImageEvent) {
        continuation.yield(.event(event))
    }

    func imagesFound(_ count: Int) {
        // Only the progress display counts them: without it, waking the consumer for each page
        // of a site would do nothing.
        guard progress != nil else { return }
        continuation.yield(.imagesFound(count))
    }

    func written(_ input: LocalizationInput, _ page: RewriteResult) {
        guard printsPages else { return }
        continuation.yield(.written(input: input.name, output: input.output ?? "", references: page.references.count,
                                    rewritten: page.references.count(where: \.rewritten)))
    }

    /// Reports what is left, then ends the progress display.
    func finish() async {
        continuation.finish()
        await consumer.value
        progress?.finish()
    }
}
#endif
