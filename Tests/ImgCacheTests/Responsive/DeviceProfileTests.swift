import Testing
@testable import ImgCache
@testable import ImgCacheMarkup

@Suite("device profiles")
struct DeviceProfileTests {
    @Test("WIDTHxHEIGHT@RATIO, the ratio 1 when left out, or a preset's name in any case")
    func parsing() throws {
        let phone = try #require(DeviceProfile("390x844@3"))
        #expect((phone.viewportWidth, phone.viewportHeight, phone.pixelRatio) == (390, 844, 3))
        #expect(phone.description == "390x844@3")
        #expect(phone.pointer == .coarse, "a narrow screen at 3x is a touch screen")
        let desktop = try #require(DeviceProfile("1280X800"))
        #expect((desktop.viewportWidth, desktop.viewportHeight, desktop.pixelRatio) == (1280, 800, 1))
        #expect(desktop.pointer == .fine)
        #expect(DeviceProfile("412x915@2.625")?.pixelRatio == 2.625)
        #expect(DeviceProfile("iPhone") == DeviceProfile.presets["iphone"])
        #expect(DeviceProfile("pixel")?.engine == .chromium)
        for bad in ["", "390", "390x", "x844", "0x844@2", "390x844@0", "390x844@-1", "390x844@", "axb@2", "390x844@3@3", "inf x1",
                    "390x844@nan", "no-such-phone"] {
            #expect(DeviceProfile(bad) == nil, "\(bad)")
        }
    }

    @Test("WebKit shows JPEG XL and HEIC beside the types every engine shows; Chromium does not")
    func imageTypesByEngine() {
        let webKit = DeviceProfile(viewportWidth: 390, viewportHeight: 844, pixelRatio: 3)
        let chromium = DeviceProfile(viewportWidth: 390, viewportHeight: 844, pixelRatio: 3, engine: .chromium)
        #expect(webKit.imageTypes.isSuperset(of: ["image/avif", "image/webp", "image/jxl", "image/heic"]))
        #expect(chromium.imageTypes.isSuperset(of: ["image/avif", "image/webp"]))
        #expect(!chromium.imageTypes.contains("image/jxl"))
    }

    @Test("a screen is a device both ways up when it turns (a phone's, a tablet's), else as it is; nonsense sizes are none")
    func screens() {
        let phone = DeviceProfile.screen(width: 390, height: 844, scale: 3, turns: true)
        #expect(phone.map(\.description) == ["390x844@3", "844x390@3"])
        #expect(phone.allSatisfy { $0.engine == .webkit && $0.pointer == .coarse })
        #expect(DeviceProfile.screen(width: 1512, height: 982, scale: 2, turns: false).map(\.description) == ["1512x982@2"])
        #expect(DeviceProfile.screen(width: 800, height: 800, scale: 2, turns: true).count == 1)
        #expect(DeviceProfile.screen(width: 0, height: 844, scale: 3, turns: true).isEmpty)
        #expect(DeviceProfile.screen(width: .nan, height: 844, scale: 3, turns: true).isEmpty)
        #if !canImport(UIKit) && !canImport(AppKit)
        #expect(DeviceProfile.mainScreen == nil, "no screen to ask here: the loader then keeps every candidate")
        #endif
    }
}
