/// One listing of a cache folder: the images and the temporary files. Listing reads no file contents; whether an image is an intact entry is for
/// the index and ``CacheEntryReader`` to say.
struct CacheDirectoryScan {
    /// The local names that have an image file.
    private(set) var imageNames: Set<String> = []
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
        case .image(let localName): imageNames.insert(localName)
        case .temporary: temporaryPaths.append(folder + "/" + name)
        case .unrelated: break
        }
    }
}
