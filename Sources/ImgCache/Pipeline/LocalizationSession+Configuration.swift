public import Foundation
import ImgCacheSupport
import ImgCacheMarkup
import ImgCacheStore

extension LocalizationSession {
    /// Everything a ``LocalizationSession`` is built from.
    public struct Configuration: Sendable {
        /// The cache the images go into; its ``ImageCacheStore/naming`` (extensions, fan-out) is
        /// the one pages use, the only place it is set.
        public var store: ImageCacheStore
        /// Performs the HTTP requests: `URLSessionTransport` in an app; on a server or in a tool, the AsyncHTTPClient one (`ImgCacheHTTPClient`) or the libcurl one (`ImgCacheCurl`).
        public var transport: any ImageTransport
        /// Download limits, time-outs, retries, accepted formats, allowed hosts and networks.
        public var downloadPolicy: DownloadPolicy
        /// How pages are rewritten: reference style, lazy attributes, images whose URL names no
        /// format, the encoding to assume (images are named as ``store`` names them). Files the
        /// session writes refer to the cache by the path from their own folder, unless
        /// ``RewriteOptions/referenceStyle`` is a URL prefix.
        public var rewriting: RewriteOptions
        /// The devices pages are localised for: ``RewriteOptions/devices`` of ``rewriting``, the
        /// one place it is set.
        package var devices: [DeviceProfile] {
            get { rewriting.devices }
            set { rewriting.devices = newValue }
        }
        /// How long downloads must be idle before a refresh.
        public var debounce: Duration
        /// During a long run of downloads, a progress refresh at least this often (nil: none).
        public var maxWait: Duration?
        /// Where refreshes are also posted as `.imgcacheRefresh` (nil: nowhere).
        public var notificationCenter: NotificationCenter?
        /// Where pages and stylesheets are read and written, and a page's images looked for in the
        /// cache: in place while that is quick (the default), or always off the cooperative pool.
        public var fileWork: FileWorkPlacement = .default
        /// What the debounce and a suspension of the process (an app frozen in the background) are
        /// measured on: `ContinuousClock`, or a manual clock in tests.
        package var clock: any Clock<Duration> = ContinuousClock()

        /// Creates a configuration; the defaults suit an app.
        public init(store: ImageCacheStore, transport: any ImageTransport, downloadPolicy: DownloadPolicy = DownloadPolicy(),
                    rewriting: RewriteOptions = RewriteOptions(), debounce: Duration = .seconds(2), maxWait: Duration? = nil,
                    notificationCenter: NotificationCenter? = nil) {
            self.store = store
            self.transport = transport
            self.downloadPolicy = downloadPolicy
            self.rewriting = rewriting
            self.debounce = debounce
            self.maxWait = maxWait
            self.notificationCenter = notificationCenter
        }
    }
}
