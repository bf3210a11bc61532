@testable import ImgCache
@testable import ImgCacheMarkup

/// The tests of choosing the image a device shows, under one name so that
/// `swift test --filter Responsive` runs them all.
enum Responsive {
    /// A phone, a tablet held landscape and a desktop, which pages' queries tell apart.
    static let phone = DeviceProfile(viewportWidth: 390, viewportHeight: 844, pixelRatio: 3)
    static let tablet = DeviceProfile(viewportWidth: 1180, viewportHeight: 820, pixelRatio: 2)
    static let desktop = DeviceProfile(viewportWidth: 1920, viewportHeight: 1080, pixelRatio: 1)
}
