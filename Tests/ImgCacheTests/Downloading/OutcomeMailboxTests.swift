import Testing
@testable import ImgCache
@testable import ImgCacheSupport

@Suite("Outcome mailbox")
struct OutcomeMailboxTests {
    @Test("a caller waiting for its last outcomes is woken once, with all of them, and not before")
    func waitsForAll() async throws {
        let mailbox = OutcomeMailbox<Int>()
        let woken = ThreadLocked(false)
        let taker = Task {
            let outcomes = await mailbox.takeAll(atLeast: 3)
            woken.withLock { $0 = true }
            return outcomes
        }
        // Waiting before anything arrives.
        try await Task.sleep(for: .milliseconds(50))
        mailbox.deliver(1)
        mailbox.deliver(2)
        try await Task.sleep(for: .milliseconds(100))
        #expect(!woken.withLock { $0 }, "two of three delivered")
        mailbox.deliver(3)
        #expect(await taker.value == [1, 2, 3])
    }

    @Test("outcomes delivered before the call are taken at once when there are enough; one at a time otherwise")
    func takesWhatIsThere() async {
        let mailbox = OutcomeMailbox<Int>()
        for value in 1...4 { mailbox.deliver(value) }
        #expect(await mailbox.takeAll(atLeast: 4) == [1, 2, 3, 4])
        mailbox.deliver(5)
        #expect(await mailbox.takeAll() == [5])
    }
}
