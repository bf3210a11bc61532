import Foundation
import Testing
@testable import ImgCache
@testable import ImgCacheSupport

@Suite("Work run in place while it is quick")
struct InlineWhileQuickTests {
    @Test("quick work keeps running in place; one piece slower than the limit sends the rest elsewhere, for good")
    func slowWorkEndsRunningInPlace() throws {
        let inline = InlineWhileQuick(limit: .milliseconds(100))
        for value in 0..<100 {
            #expect(inline.run { value * 2 } == value * 2)
        }
        #expect(inline.isQuick)

        #expect(inline.run { () -> Int in
            Thread.sleep(forTimeInterval: 0.15)
            return 7
        } == 7)
        #expect(!inline.isQuick)
        _ = inline.run { 1 }
        #expect(!inline.isQuick, "a quick piece afterwards does not bring it back")
    }

    @Test("work that throws is timed too, and its error passes through")
    func throwingWorkIsTimed() {
        struct Refused: Error {}
        let inline = InlineWhileQuick(limit: .milliseconds(100))
        #expect(throws: Refused.self) {
            try inline.run { () throws -> Int in
                Thread.sleep(forTimeInterval: 0.15)
                throw Refused()
            }
        }
        #expect(!inline.isQuick)
    }
}
