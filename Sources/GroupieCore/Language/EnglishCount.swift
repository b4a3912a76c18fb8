/// A count with its noun in the English that staff pages and the command line speak to staff
/// and operators: "1 photo", "2 photos", "0 groups".
public enum EnglishCount {
    /// `count` and `noun`, which takes an s unless the count is one, or `plural` when given.
    public static func of(_ count: Int, _ noun: String, plural: String? = nil) -> String {
        "\(count) " + (count == 1 ? noun : plural ?? noun + "s")
    }
}
