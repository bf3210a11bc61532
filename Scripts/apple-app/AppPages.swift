import Foundation
import ImgCache
import ImgCacheURLSession

/// Opens a page the way an app does: written into the cache folder at once, images in the background.
public func openPage() async throws -> String {
    let folder = FileManager.default.temporaryDirectory.appending(path: "imgcache-app-check").path
    let loader = OfflinePageLoader(store: try ImageCacheStore(directory: folder), transport: URLSessionTransport())
    let page = try await loader.open(html: Array("<link rel=stylesheet href=a.css><img src=a.png>".utf8),
                                     pageURL: BrowserURL("https://example.com/blog/post.html"))
    return try String(contentsOf: page.fileURL, encoding: .utf8)
}

/// The devices a loader made on the main thread is for, by default: the screen the app runs on.
@MainActor
public func defaultDevices() throws -> [String] {
    let folder = FileManager.default.temporaryDirectory.appending(path: "imgcache-app-check").path
    let loader = OfflinePageLoader(store: try ImageCacheStore(directory: folder), transport: URLSessionTransport())
    return loader.session.configuration.devices.map(\.description)
}
