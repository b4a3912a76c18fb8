/// Picks the language to answer in from what the client asked for and what a venue offers.
public enum LanguageNegotiation {
    /// `explicit` (a `?lang=` parameter or the player's choice) wins; then the `Accept-Language`
    /// ranges by weight; then, for a visitor who asked for languages the venue does not offer,
    /// English when it does (a French phone in a Swedish venue reads English sooner than
    /// Swedish); then the venue's default. A range `sv-SE` matches an offered `sv`, and `sv`
    /// matches `sv-SE`.
    public static func choose(explicit: String?, acceptLanguage: String?, offered: [String]) -> String {
        let fallback = offered.first ?? "en"
        if let explicit, let match = match(explicit, in: offered) {
            return match
        }
        let asked = acceptLanguage.map(ranges) ?? []
        for range in asked {
            if let match = match(range, in: offered) { return match }
        }
        if explicit != nil || !asked.isEmpty, let english = match("en", in: offered) {
            return english
        }
        return fallback
    }

    /// The ranges of an `Accept-Language` header, highest weight first, `q=0` dropped.
    public static func ranges(_ header: String) -> [String] {
        var weighted: [(range: String, weight: Double, order: Int)] = []
        for (order, item) in header.split(separator: ",").enumerated() {
            let fields = item.split(separator: ";").map { $0.trimmingWhitespace() }
            guard let range = fields.first, !range.isEmpty, range != "*" else { continue }
            var weight = 1.0
            for parameter in fields.dropFirst() where parameter.hasPrefix("q=") {
                weight = Double(parameter.dropFirst(2)) ?? 0
            }
            if weight > 0 { weighted.append((range, weight, order)) }
        }
        return weighted.sorted { ($0.weight, -$0.order) > ($1.weight, -$1.order) }.map(\.range)
    }

    static func match(_ range: String, in offered: [String]) -> String? {
        let wanted = range.lowercased()
        if let exact = offered.first(where: { $0.lowercased() == wanted }) { return exact }
        let wantedLanguage = wanted.split(separator: "-").first.map(String.init) ?? wanted
        return offered.first { $0.lowercased().split(separator: "-").first.map(String.init) == wantedLanguage }
    }
}
