import GroupieCore
import Testing

@Suite("Languages")
struct LanguageTests {
    @Test("?lang= wins over Accept-Language")
    func explicitWins() {
        #expect(LanguageNegotiation.choose(explicit: "en", acceptLanguage: "sv", offered: ["sv", "en"]) == "en")
    }

    @Test("Accept-Language is read by weight, not by order")
    func acceptLanguageWeights() {
        #expect(LanguageNegotiation.choose(explicit: nil, acceptLanguage: "fr;q=0.2, en;q=0.9", offered: ["fr", "en"]) == "en")
        #expect(LanguageNegotiation.ranges("de, sv;q=0.5, en;q=0") == ["de", "sv"])
    }

    @Test("A region matches its language, both ways")
    func regionMatching() {
        #expect(LanguageNegotiation.choose(explicit: nil, acceptLanguage: "sv-SE,en;q=0.5", offered: ["en", "sv"]) == "sv")
        #expect(LanguageNegotiation.choose(explicit: "en", acceptLanguage: nil, offered: ["sv", "en-GB"]) == "en-GB")
    }

    @Test("An unknown language falls back to the venue's first language")
    func fallback() {
        #expect(LanguageNegotiation.choose(explicit: "xx", acceptLanguage: "de", offered: ["sv", "en"]) == "sv")
        #expect(LanguageNegotiation.choose(explicit: nil, acceptLanguage: nil, offered: ["fr", "en"]) == "fr")
    }

    @Test("Language codes are ISO 639-1 with an optional region or script", arguments: [
        ("sv", true), ("en-GB", true), ("zh-Hant", true), ("pt-BR", true),
        ("english", false), ("EN", false), ("en-gb", false), ("xx", false), ("", false), ("en-GB-x", false),
    ])
    func languageCodes(code: String, valid: Bool) {
        #expect(LanguageCode.isValid(code) == valid)
    }

    @Test("A text falls back to the default language, then to any text")
    func textFallback() {
        let text = LocalizedText.translated(["sv": "Haj", "en": "Shark"])
        #expect(text.resolved(language: "en", fallback: "sv") == "Shark")
        #expect(text.resolved(language: "fr", fallback: "sv") == "Haj")
        #expect(LocalizedText.translated(["en": "Shark"]).resolved(language: "fr", fallback: "sv") == "Shark")
        #expect(LocalizedText.plain("Apollo").resolved(language: "fr", fallback: "sv") == "Apollo")
    }
}
