/// What a file of a site folder is to imgcache, by its extension.
public enum SiteFileKind: String, Sendable, Codable {
    /// `.html`, `.htm`, `.xhtml`: rewritten.
    case page
    /// `.css`: rewritten.
    case stylesheet
    /// Everything else: copied as it is.
    case asset
}
