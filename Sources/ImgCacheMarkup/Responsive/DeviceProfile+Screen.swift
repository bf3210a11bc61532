import Foundation
#if canImport(UIKit) && !os(watchOS)
public import UIKit
#elseif canImport(AppKit)
public import AppKit
#endif

extension DeviceProfile {
    /// The devices a screen shows pages on: `width`×`height` points (CSS pixels in a web view
    /// that fills it) at `scale` device pixels each, and, for a screen that turns (a phone's or a
    /// tablet's), the same a quarter turn round, so that turning it never asks for an image that
    /// was not kept. Empty for sizes that are not positive and finite.
    public static func screen(width: Double, height: Double, scale: Double, turns: Bool) -> [DeviceProfile] {
        guard [width, height, scale].allSatisfy({ $0 > 0 && $0.isFinite }) else { return [] }
        let upright = DeviceProfile(viewportWidth: width, viewportHeight: height, pixelRatio: scale)
        guard turns, width != height else { return [upright] }
        return [upright, DeviceProfile(viewportWidth: height, viewportHeight: width, pixelRatio: scale)]
    }

    #if canImport(UIKit) && !os(watchOS)
    /// The devices `screen` shows pages on (``screen(width:height:scale:turns:)``): its bounds in
    /// points at its scale, both ways up on a phone or a tablet.
    @MainActor
    public static func screen(_ screen: UIScreen) -> [DeviceProfile] {
        let idiom = screen.traitCollection.userInterfaceIdiom
        return Self.screen(width: Double(screen.bounds.width), height: Double(screen.bounds.height), scale: Double(screen.scale),
                           turns: idiom == .phone || idiom == .pad)
    }
    #elseif canImport(AppKit)
    /// The devices `screen` shows pages on (``screen(width:height:scale:turns:)``): its frame in
    /// points at its backing scale. A window is at most that large, and a page in a smaller one
    /// picks among the same images.
    @MainActor
    public static func screen(_ screen: NSScreen) -> [DeviceProfile] {
        Self.screen(width: Double(screen.frame.width), height: Double(screen.frame.height), scale: Double(screen.backingScaleFactor),
                    turns: false)
    }
    #endif

    /// The screen the app runs on, asked on the main thread (UIKit and AppKit answer only
    /// there); nil on another thread, and where there is no screen to ask.
    package static var mainScreen: [DeviceProfile]? {
        #if canImport(UIKit) && !os(watchOS)
        guard Thread.isMainThread else { return nil }
        return MainActor.assumeIsolated { screen(UIScreen.main) }
        #elseif canImport(AppKit)
        guard Thread.isMainThread else { return nil }
        return MainActor.assumeIsolated { NSScreen.main.map { screen($0) } }
        #else
        return nil
        #endif
    }
}
