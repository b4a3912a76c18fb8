/// Ids of venues, missions and tasks are the keys progress is stored under.
public enum Identifier {
    public static let maxLength = 64

    /// `[a-z0-9-]+`, at most `maxLength` characters.
    public static func isValid(_ id: String) -> Bool {
        guard !id.isEmpty, id.utf8.count <= maxLength else { return false }
        return id.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "-")
        }
    }
}
