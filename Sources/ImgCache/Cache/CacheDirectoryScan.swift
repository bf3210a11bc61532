/// One listing of a cache folder: the local names that have an image, a metadata sidecar or
/// both, and the temporary files. Listing reads no file contents; deciding whether an entry is
/// intact is ``CacheEntryReader``'s job.
struct CacheDirectoryScan {
    /// Which halves of an entry were found.
    struct Entry {
        var hasImage = false
        var hasMetadata = false
    }

    /// Every local name seen, with the halves found.
    private(set) var entries: [String: Entry] = [:]
    /// The paths of hidden temporary files (writes in progress or left by killed processes).
    private(set) var temporaryPaths: [String] = []

    /// Lists the top level and every two-hex-digit fan-out subfolder, whatever the current
    /// naming's fan-out setting, so that entries written with the other setting are still found
    /// by `clear` and `prune`.
    init(layout: CacheFileLayout) {
        for name in CacheFileSystem.names(inFolder: layout.folder) {
            if CacheFileLayout.isFanOutFolderName(name) {
                let subfolder = layout.folder + "/" + name
                for inner in CacheFileSystem.names(inFolder: subfolder) {
                    note(inner, in: subfolder, subfolderName: name)
                }
            } else {
                note(name, in: layout.folder, subfolderName: nil)
            }
        }
    }

    private mutating func note(_ name: String, in folder: String, subfolderName: String?) {
        switch CacheFileLayout.kind(ofFileNamed: name, inSubfolder: subfolderName) {
        case .image(let localName): entries[localName, default: Entry()].hasImage = true
        case .metadata(let localName): entries[localName, default: Entry()].hasMetadata = true
        case .temporary: temporaryPaths.append(folder + "/" + name)
        case .unrelated: break
        }
    }

    /// The local names in a stable order, so that maintenance reports are reproducible.
    var sortedLocalNames: [String] { entries.keys.sorted() }
}
