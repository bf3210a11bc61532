import Foundation
@testable import ImgCache

/// Collects the events a notifier hands its callback, from any thread.
final class NotifierEventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [ImageEvent] = []

    func append(_ event: ImageEvent) {
        lock.lock()
        items.append(event)
        lock.unlock()
    }

    var events: [ImageEvent] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }

    var refreshes: [RefreshSummary] { events.compactMap(\.refreshSummary) }
}

/// A value several threads can set and read.
final class NotifierTestBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    func update(_ body: (inout Value) -> Void) {
        lock.lock()
        body(&stored)
        lock.unlock()
    }
}

enum NotifierFixtures {
    static func url(_ name: String) -> String { "https://img.example/\(name).png" }

    static func start(_ name: String) -> ImageEvent {
        .started(url: url(name), localName: "\(name).png")
    }

    static func outcome(_ name: String, _ status: DownloadStatus = .downloaded, bytes: Int = 100,
                        failure: DownloadFailure.Kind? = nil) -> DownloadOutcome {
        let isCached = status == .downloaded || status == .revalidated || status == .cached
        return DownloadOutcome(url: url(name), localName: "\(name).png", status: status,
                               byteCount: isCached ? bytes : 0, contentType: isCached ? "image/png" : nil,
                               failure: failure.map(DownloadFailure.init))
    }

    static func finish(_ name: String, _ status: DownloadStatus = .downloaded, bytes: Int = 100,
                       failure: DownloadFailure.Kind? = nil) -> ImageEvent {
        .finished(outcome(name, status, bytes: bytes, failure: failure))
    }

    /// Lets stray tasks (a timer that should not fire) run, briefly.
    static func settle() async {
        for _ in 0..<20 { await Task.yield() }
        try? await Task.sleep(for: .milliseconds(5))
        for _ in 0..<20 { await Task.yield() }
    }

    /// Polls until `condition` holds or two seconds pass; whether it held.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(2)
        while !condition() {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return true
    }
}
