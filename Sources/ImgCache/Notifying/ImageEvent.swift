public import Foundation

/// Something a ``RefreshNotifier`` reports to its subscribers, callback and (for refreshes)
/// notification center.
public enum ImageEvent: Sendable, Hashable {
    /// A network request for an image began; `localName` is nil while only its bytes can name it.
    case started(url: String, localName: String?)
    /// An image is done and did not fail: downloaded, revalidated, cached or skipped.
    case finished(DownloadOutcome)
    /// An image could not be fetched (its outcome's status is ``DownloadStatus/failed``).
    case failed(DownloadOutcome)
    /// The viewer should reload the page now: the images of a burst are in.
    case refresh(RefreshSummary)

    /// The summary, when this is a refresh.
    public var refreshSummary: RefreshSummary? {
        if case .refresh(let summary) = self { return summary }
        return nil
    }
}

extension Notification.Name {
    /// Posted by a ``RefreshNotifier`` when the page should be reloaded. The notification's
    /// `object` is the notifier; it carries the ``RefreshSummary``, which
    /// `Notification.refreshSummary` reads.
    public static let imgcacheRefresh = Notification.Name("imgcacheRefresh")
}

extension Notification {
    /// The summary carried by an `Notification.Name.imgcacheRefresh` notification.
    public var refreshSummary: RefreshSummary? {
        userInfo?[RefreshNotifier.summaryUserInfoKey] as? RefreshSummary
    }
}
