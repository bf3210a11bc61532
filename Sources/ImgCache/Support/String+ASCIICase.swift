extension String {
    /// Whether the two are equal once ASCII letters are folded to lower case, as HTTP compares
    /// header names and URL schemes: without the two lowercased copies `lowercased()` would make.
    package func equalsIgnoringASCIICase(_ other: String) -> Bool {
        utf8.count == other.utf8.count && hasPrefixIgnoringASCIICase(other)
    }

    /// Whether it starts with `prefix`, ASCII letters compared regardless of case.
    package func hasPrefixIgnoringASCIICase(_ prefix: String) -> Bool {
        var own = utf8.makeIterator()
        for expected in prefix.utf8 {
            guard let byte = own.next(), byte.asciiLowercased == expected.asciiLowercased else { return false }
        }
        return true
    }
}
