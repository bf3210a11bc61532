import Foundation
import Subprocess
import Testing

/// What the manifest declares for platforms this machine cannot build for, read from
/// `swift package dump-package`: Apple platforms use the SDK's libxml2 module and link `xml2` and
/// `iconv`; `CLibXML2` (pkg-config's libxml2) is for the others; apps can leave the command line's
/// dependencies out with a trait.
@Suite("The package manifest")
struct ManifestTests {
    static let apple: Set<String> = ["macos", "maccatalyst", "ios", "tvos", "watchos", "visionos"]

    /// The manifest as JSON, dumped once for both tests.
    static func dumpedManifest() async throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: try await dump.value) as? [String: Any] ?? [:]
    }

    private static let dump = Task { try await dumpManifest() }

    /// `swift package dump-package` with a scratch folder of its own (the suite's build holds
    /// `.build`), at the lowest priority (compiling the manifest is seconds of CPU that the
    /// suite's tests with deadlines need more).
    private static func dumpManifest() async throws -> Data {
        let root = Fixtures.root.deletingLastPathComponent().path
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("imgcache-dump-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let result = try await Subprocess.run(
            .name("nice"), arguments: ["-n", "19", "swift", "package", "--package-path", root, "--scratch-path", scratch, "dump-package"],
            output: .string(limit: collectedOutputLimit), error: .string(limit: collectedOutputLimit))
        guard result.terminationStatus.isSuccess else {
            throw ManifestDumpFailure(description: "swift package dump-package failed: \(result.standardError)")
        }
        return Data(result.standardOutput.utf8)
    }

    struct ManifestDumpFailure: Error, CustomStringConvertible {
        let description: String
    }

    static func target(_ name: String, in manifest: [String: Any]) -> [String: Any]? {
        (manifest["targets"] as? [[String: Any]])?.first { $0["name"] as? String == name }
    }

    /// The platform names of a `condition` object, lowercased.
    static func platforms(_ condition: Any?) -> Set<String> {
        let names = ((condition as? [String: Any])?["platformNames"] as? [String]) ?? []
        return Set(names.map { $0.lowercased() })
    }

    @Test("the markup layer depends on CLibXML2 only off Apple platforms, and links xml2 and iconv only on them")
    func libxml2ByPlatform() async throws {
        let manifest = try await Self.dumpedManifest()
        let core = try #require(Self.target("ImgCacheMarkup", in: manifest))
        let dependencies = try #require(core["dependencies"] as? [[String: Any]])
        let libxml = try #require(dependencies.first { dependency in
            ((dependency["byName"] ?? dependency["target"]) as? [Any])?.first as? String == "CLibXML2"
        }, "\(dependencies)")
        let condition = ((libxml["byName"] ?? libxml["target"]) as? [Any])?.last
        let libxmlPlatforms = Self.platforms(condition)
        #expect(libxmlPlatforms.contains("linux"), "\(libxml)")
        #expect(libxmlPlatforms.isDisjoint(with: Self.apple), "\(libxml)")

        let linked = (core["settings"] as? [[String: Any]] ?? []).filter { setting in
            (setting["tool"] as? String) == "linker"
        }
        for library in ["xml2", "iconv"] {
            let setting = try #require(linked.first { setting in
                ((setting["kind"] as? [String: Any])?["linkedLibrary"] as? [String: Any])?["_0"] as? String == library
            }, "\(library) is not linked: \(linked)")
            let platforms = Self.platforms(setting["condition"])
            #expect(platforms == Self.apple, "\(library) is linked on \(platforms)")
        }
    }

    @Test("a CommandLine trait, on by default, carries the command line's dependencies")
    func commandLineTrait() async throws {
        let manifest = try await Self.dumpedManifest()
        let traits = try #require(manifest["traits"] as? [[String: Any]])
        #expect(traits.contains { $0["name"] as? String == "CommandLine" })
        let defaults = traits.first { $0["name"] as? String == "default" }?["enabledTraits"] as? [String]
        #expect(defaults == ["CommandLine"])
        let transport = try #require(Self.target("ImgCacheHTTPClient", in: manifest))
        let products = (transport["dependencies"] as? [[String: Any]] ?? []).compactMap { $0["product"] as? [Any] }
        #expect(!products.isEmpty)
        for product in products {
            let condition = product.last as? [String: Any]
            #expect((condition?["traits"] as? [String]) == ["CommandLine"], "\(product)")
        }
    }
}
