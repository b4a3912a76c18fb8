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

    @Test("A visitor whose languages the venue lacks gets English, then the venue's first language")
    func fallback() {
        #expect(LanguageNegotiation.choose(explicit: "xx", acceptLanguage: "de", offered: ["sv", "en"]) == "en")
        #expect(LanguageNegotiation.choose(explicit: nil, acceptLanguage: "fr-FR,fr;q=0.9", offered: ["sv", "en-GB"]) == "en-GB")
        #expect(LanguageNegotiation.choose(explicit: nil, acceptLanguage: "fr", offered: ["sv", "de"]) == "sv")
        // Nothing asked for: the venue's own first language.
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

@Suite("Display names")
struct DisplayNameTests {
    @Test("Bounded in characters, bytes and marks per character")
    func bounds() {
        #expect(DisplayName.validated(String(repeating: "x", count: 32)) == .success(String(repeating: "x", count: 32)))
        #expect(DisplayName.validated(String(repeating: "x", count: 33)) == .failure(.tooLong(maximum: 32)))
        #expect(DisplayName.validated(String(repeating: "ä", count: 65)) == .failure(.tooManyBytes(maximum: 128)))
        #expect(DisplayName.validated("a" + String(repeating: "\u{0301}", count: 32_761)) == .failure(.tooManyBytes(maximum: 128)))
        #expect(DisplayName.validated("x\u{0300}\u{0301}\u{0302}\u{0303}\u{0304}") == .failure(.tooManyMarks(maximum: 4)))
        #expect(DisplayName.validated("Nguyễn") == .success("Nguyễn"))
        #expect(DisplayName.validated("👨🏽‍👩🏽‍👧🏽‍👦🏽") == .success("👨🏽‍👩🏽‍👧🏽‍👦🏽"), "a family with skin tones is one character")
    }

    @Test("A name must show something: blanks, joiners, fillers and isolates alone are invisible")
    func visible() {
        for name in ["\u{200D}", "\u{3164}\u{3164}", "\u{2800}", "\u{034F}", "\u{FE0F}"] {
            #expect(DisplayName.validated(name) == .failure(.invisible), "\(name.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        for name in ["\u{200B}x", "\u{2067}x\u{2069}", "a\u{202E}b"] {
            #expect(DisplayName.validated(name) == .failure(.forbiddenCharacter))
        }
    }

    @Test("Shortening keeps what fits, at character boundaries, and never leaves nothing")
    func shortening() {
        #expect(DisplayName.shortened("a" + String(repeating: "\u{0301}", count: 1000)) == "á", "composed, the rest of the marks dropped")
        let family = String(repeating: "👨‍👩‍👧‍👦", count: 30)
        let short = DisplayName.shortened(family)
        #expect(short.utf8.count <= 128 && short.count == 5)
        #expect(DisplayName.shortened("\u{3164}") == "?")
        #expect(DisplayName.shortened("Ada\u{202E}\u{200B}evil") == "Adaevil", "forbidden characters go")
    }
}

@Suite("Join codes spell no rude words")
struct JoinCodeWordTests {
    @Test("the check finds words, also written with digits, and passes ordinary codes")
    func check() {
        #expect(JoinCode.spellsBlockedWord("XFUCKQ"))
        #expect(JoinCode.spellsBlockedWord("A55BCD"))
        #expect(JoinCode.spellsBlockedWord("QKUKZ2"))
        #expect(JoinCode.spellsBlockedWord("PUT3XY"))
        #expect(!JoinCode.spellsBlockedWord("H7K9QP"))
    }

    @Test("every blocked word can be spelled by the alphabet, else it would guard nothing")
    func spellable() {
        for word in JoinCode.blockedWords {
            #expect(word.allSatisfy(JoinCode.alphabet.contains), "\(word)")
        }
    }

    @Test("generated codes never spell a blocked word")
    func generated() {
        // Without the check, 20,000 codes hold a dozen rude words on average (ASS alone about 3).
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            #expect(!JoinCode.spellsBlockedWord(JoinCode.random(using: &generator).value))
        }
    }
}

@Suite("Text direction")
struct BidiTests {
    @Test("Right-to-left languages by code and by script")
    func rightToLeft() {
        for tag in ["ar", "he", "fa", "ur", "ar-EG", "az-Arab", "AR"] { #expect(LanguageCode.isRightToLeft(tag), "\(tag)") }
        for tag in ["en", "sv", "ja", "fr-CA", "ku-Latn", "zh-Hant", ""] { #expect(!LanguageCode.isRightToLeft(tag), "\(tag)") }
    }

    @Test("Every line opens with its language's mark; an isolate wraps its text")
    func marks() {
        #expect(Bidi.lines("ليلى: 4\nOliver: 2", language: "ar") == "\u{200F}ليلى: 4\n\u{200F}Oliver: 2")
        #expect(Bidi.lines("ليلى: 4", language: "en") == "\u{200E}ليلى: 4")
        #expect(Bidi.isolate("ليلى") == "\u{2068}ليلى\u{2069}")
        #expect(Bidi.lines("", language: "ar") == "", "nothing stays nothing")
    }
}
