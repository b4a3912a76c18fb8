extension StringProtocol {
    /// Without leading and trailing white space and line breaks. Pure Swift: Foundation's
    /// `trimmingCharacters(in:)` bridges through NSString and dominated reading large files.
    public func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        return String(self[first..<scalars.index(after: last)])
    }
}
