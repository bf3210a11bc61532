import Testing
import AppPages

@Test func opensAPage() async throws {
    #expect(try await openPage().contains("https://example.com/blog/a.css"))
}

#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif
import ImgCache

/// On a Mac or a Simulator the screen is there to ask: a loader made on the main thread is for
/// it (both ways up on a phone or tablet), and pages keep only the images it shows.
@MainActor @Test func theLoaderIsForItsScreen() throws {
    #if canImport(UIKit)
    let screen = DeviceProfile.screen(UIScreen.main)
    #else
    let screen = NSScreen.main.map { DeviceProfile.screen($0) } ?? []
    #endif
    #expect(!screen.isEmpty)
    #expect(try defaultDevices() == screen.map(\.description))
}
