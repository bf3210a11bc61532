extension String {
    /// The longest prefix, in whole characters, whose UTF-8 form is at most `maxBytes` long: a
    /// file name cut to fit a limit without splitting a character.
    package func prefix(maxUTF8Bytes maxBytes: Int) -> String {
        guard utf8.count > maxBytes else { return self }
        var result = ""
        for character in self {
            guard result.utf8.count + character.utf8.count <= maxBytes else { break }
            result.append(character)
        }
        return result
    }
}
