#if CommandLine
import ArgumentParser
import ImgCache

/// Options shared by every command that reads pages.
struct PageOptions: ParsableArguments {
    @Option(name: .customLong("base-url"), help: "The URL the page is served from (for a site folder, the folder); relative image URLs resolve against it.")
    var baseURL: String?

    @Option(help: "Comma-separated image extensions to localise.")
    var extensions: String = LocalImageNaming.defaultExtensions.sorted().joined(separator: ",")

    @Flag(name: .customLong("extensions-only"), help: ArgumentHelp(
        "Only URLs whose path ends in one of --extensions are images.",
        discussion: "By default a URL with no extension, or one such as .php that names no kind of file, is also taken where the markup says it is an image (img src, srcset, poster, CSS background, ...): it is fetched and named by its bytes' format."))
    var extensionsOnly = false

    @Option(name: .customLong("lazy-attributes"), help: "Comma-separated lazy-loading attributes holding image URLs.")
    var lazyAttributes: String = RewriteOptions.defaultLazyAttributes.joined(separator: ",")

    @Option(help: "The page's encoding, as an HTTP charset would give it (e.g. gbk, shift_jis).")
    var charset: String?

    @Flag(name: .customLong("absolute-links"), inversion: .prefixedNo, help: ArgumentHelp(
        "Make the page's URLs that are not images (stylesheets, scripts, links, forms, fonts) absolute against its base.",
        discussion: "So that a page written away from its origin still reaches them, as wget -k does. Default: on for pages fetched by URL, off for files (a site folder's other files are copied beside its pages)."))
    var absoluteLinks: Bool?

    @Flag(name: .customLong("fan-out"), help: "Store images in two-hex-digit subfolders of the cache folder.")
    var fanOut = false

    @Option(name: .customLong("device"), help: ArgumentHelp(
        "A device the pages are for: WIDTHxHEIGHT@RATIO in CSS pixels (e.g. 390x844@3), or a preset. Repeatable.",
        discussion: "Of each responsive image (srcset, sizes, picture sources), only the candidates these devices show, as their browsers pick them, are fetched and kept in the page; the others are dropped from it, so that no device reaches for an image that is not there. Without --device, every candidate. Presets: \(DeviceProfile.presets.keys.sorted().joined(separator: ", ")).",
        valueName: "device"))
    var devices: [String] = []

    func validate() throws {
        if let baseURL, BrowserURL(baseURL) == nil {
            throw ValidationError("--base-url '\(baseURL)' is not an absolute URL.")
        }
        if parsedExtensions.isEmpty {
            throw ValidationError("--extensions needs at least one extension, such as jpg,png.")
        }
        for device in devices where DeviceProfile(device) == nil {
            throw ValidationError("--device '\(device)' is neither WIDTHxHEIGHT@RATIO (such as 390x844@3) nor a preset (\(DeviceProfile.presets.keys.sorted().joined(separator: ", "))).")
        }
        if let charset, HTMLEncoding(label: charset) == nil {
            throw ValidationError("--charset '\(charset)' is not an encoding label browsers know.")
        }
    }

    var parsedExtensions: Set<String> {
        Set(commaSeparatedItems(extensions).map { $0.lowercased() }.filter { !$0.isEmpty })
    }

    var pageURL: BrowserURL? { baseURL.flatMap { BrowserURL($0) } }

    /// `--extensions` and `--fan-out`: the cache's naming, and a rewriter's on its own.
    var naming: LocalImageNaming { LocalImageNaming(extensions: parsedExtensions, fanOut: fanOut) }

    func rewriteOptions(referenceStyle: LocalReferenceStyle) -> RewriteOptions {
        var options = RewriteOptions(
            referenceStyle: referenceStyle,
            lazyAttributes: commaSeparatedItems(lazyAttributes),
            transportEncodingLabel: charset
        )
        options.untypedImages = !extensionsOnly
        options.devices = devices.compactMap(DeviceProfile.init)
        options.otherURLs = switch absoluteLinks {
        case nil: .automatic
        case true?: .absolute
        case false?: .asWritten
        }
        return options
    }
}

/// The comma-separated items of an option's value, each without the spaces around it (tab and
/// Unicode's space separators, as `CharacterSet.whitespaces` has them). Not Foundation's
/// `trimmingCharacters(in:)`: on Linux its first call bridges through `NSString`, a
/// measurable part of a short run's start.
private func commaSeparatedItems(_ text: String) -> [String] {
    text.split(separator: ",", omittingEmptySubsequences: true).map { item in
        var scalars = item.unicodeScalars[...]
        while let first = scalars.first, first.isOptionSpace { scalars.removeFirst() }
        while let last = scalars.last, last.isOptionSpace { scalars.removeLast() }
        return String(Substring(scalars))
    }
}

private extension Unicode.Scalar {
    var isOptionSpace: Bool {
        value < 0x80 ? (self == " " || self == "\t") : properties.generalCategory == .spaceSeparator
    }
}
#endif
