import Foundation
import Testing
@testable import ImgCache
@testable import ImgCacheStore

/// The privacy manifest an app ships with the library (App Store Connect refuses an upload whose
/// code calls a required-reason API its manifests do not declare, ITMS-91053): a resource of
/// `ImgCache`, declaring every category of those APIs the library's sources call.
@Suite("The privacy manifest")
struct PrivacyManifestTests {
    /// Apple's required-reason API categories, what calls them, and the reasons Apple lists.
    /// C functions are matched where called (`stat(`), Swift names wherever they appear.
    struct Category: Sendable, CustomTestStringConvertible {
        let name: String
        let functions: [String]
        let symbols: [String]
        let reasons: Set<String>
        var testDescription: String { name }
    }

    static let categories: [Category] = [
        Category(name: "NSPrivacyAccessedAPICategoryFileTimestamp",
                 functions: ["stat", "fstat", "fstatat", "lstat", "getattrlist", "fgetattrlist", "getattrlistbulk", "getattrlistat"],
                 symbols: ["creationDate", "modificationDate", "fileModificationDate", "contentModificationDateKey", "creationDateKey"],
                 reasons: ["DDA9.1", "C617.1", "3B52.1", "0A2A.1"]),
        Category(name: "NSPrivacyAccessedAPICategorySystemBootTime", functions: ["mach_absolute_time"], symbols: ["systemUptime"],
                 reasons: ["35F9.1", "8FFB.1", "3D61.1"]),
        Category(name: "NSPrivacyAccessedAPICategoryDiskSpace", functions: ["statfs", "statvfs", "fstatfs", "fstatvfs"],
                 symbols: ["volumeAvailableCapacityKey", "volumeAvailableCapacityForImportantUsageKey",
                           "volumeAvailableCapacityForOpportunisticUsageKey", "volumeTotalCapacityKey", "systemFreeSize", "systemSize"],
                 reasons: ["85F4.1", "E174.1", "7D9E.1", "B728.1"]),
        Category(name: "NSPrivacyAccessedAPICategoryActiveKeyboards", functions: [], symbols: ["activeInputModes"],
                 reasons: ["3EC4.1", "54BD.1"]),
        Category(name: "NSPrivacyAccessedAPICategoryUserDefaults", functions: [], symbols: ["UserDefaults"],
                 reasons: ["CA92.1", "1C8F.1", "C56D.1", "AC6B.1"]),
    ]

    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The Swift sources of the products an app links: ImgCache and ImgCacheURLSession.
    static func appSources() throws -> [(path: String, code: String)] {
        try ["Sources/ImgCache", "Sources/ImgCacheSupport", "Sources/ImgCacheURLs", "Sources/ImgCacheMarkup",
             "Sources/ImgCacheStore", "Sources/ImgCacheURLSession"].flatMap { folder -> [(path: String, code: String)] in
            let root = repository.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
            return try files.map { file in
                let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                // Comments say what is not called.
                let code = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
                    line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line)
                }.joined(separator: "\n")
                return ("\(folder)/\(file)", code)
            }
        }
    }

    /// Where the sources call `category`'s APIs.
    static func calls(of category: Category, in sources: [(path: String, code: String)]) -> [String] {
        let patterns = category.functions.map { "\\b\($0)\\s*\\(" } + category.symbols.map { "\\b\($0)\\b" }
        return sources.filter { source in
            patterns.contains { source.code.range(of: $0, options: .regularExpression) != nil }
        }.map(\.path)
    }

    /// The manifest as the library's resource bundle holds it.
    static func declaredCategories() throws -> [String: [String]] {
        let url = try #require(Bundle.module.url(forResource: "PrivacyInfo", withExtension: "xcprivacy"),
                               "PrivacyInfo.xcprivacy is not a resource of ImgCache")
        let plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil)
        let root = try #require(plist as? [String: Any])
        #expect(root["NSPrivacyTracking"] as? Bool == false)
        let types = try #require(root["NSPrivacyAccessedAPITypes"] as? [[String: Any]])
        var declared: [String: [String]] = [:]
        for entry in types {
            let name = try #require(entry["NSPrivacyAccessedAPIType"] as? String)
            declared[name] = try #require(entry["NSPrivacyAccessedAPITypeReasons"] as? [String])
        }
        return declared
    }

    @Test("every required-reason API the library calls is declared, with a reason Apple lists for it", arguments: categories)
    func declared(category: Category) throws {
        let callers = Self.calls(of: category, in: try Self.appSources())
        let declared = try Self.declaredCategories()
        if callers.isEmpty {
            #expect(declared[category.name] == nil, "declared but not called: \(category.name)")
        } else {
            let reasons = try #require(declared[category.name], "\(category.name) is called in \(callers) but not declared")
            #expect(!reasons.isEmpty)
            #expect(Set(reasons).isSubset(of: category.reasons), "\(reasons) are not reasons Apple lists for \(category.name)")
        }
    }

    @Test("the scan finds the calls it looks for: the cache stats its files")
    func scanFindsFileTimestamps() throws {
        let callers = Self.calls(of: Self.categories[0], in: try Self.appSources())
        #expect(callers.contains("Sources/ImgCacheStore/CacheFileSystem.swift"), "\(callers)")
    }
}
