import Testing
import AppPages

@Test func opensAPage() async throws {
    #expect(try await openPage().contains("https://example.com/blog/a.css"))
}
