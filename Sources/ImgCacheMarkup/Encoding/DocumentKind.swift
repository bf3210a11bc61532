/// The kind of document a warning or an encoding notice is about.
public enum DocumentKind: String, Sendable, Hashable {
    /// An HTML page.
    case page
    /// A CSS stylesheet.
    case stylesheet
}
