import Foundation
import PackagePlugin

/// `swift package localize-images ARGUMENTS…`: runs `imgcache fetch ARGUMENTS…` in the folder of
/// the package that uses it, with this package's own `imgcache` as the tool, and ends as it ends.
///
/// The build step of a hybrid app in SwiftPM's terms (and in Xcode's menu for the package, when the package itself is open there): it writes into
/// the package and downloads images, so SwiftPM asks for both, or takes them from
/// `--allow-writing-to-package-directory --allow-network-connections all`.
@main
struct LocalizeImages: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let tool = try context.tool(named: "imgcache")
        let process = Process()
        process.executableURL = tool.url
        process.arguments = ["fetch"] + arguments
        // Relative paths in the arguments mean the package's folder, as a Run Script phase's do.
        process.currentDirectoryURL = context.package.directoryURL
        try process.run()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            // imgcache has said what went wrong; its status says how (2: some images failed).
            Diagnostics.error("imgcache fetch ended with status \(process.terminationStatus)")
            exit(process.terminationStatus == 0 ? 1 : process.terminationStatus)
        }
    }
}
