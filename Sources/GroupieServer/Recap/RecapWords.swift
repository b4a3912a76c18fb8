import Foundation
import GroupieCore
import GroupieImaging

/// The words of the recap's page in the languages Groupie speaks (English for the others), and
/// the page made of a `Recap`.
enum RecapWords {
    struct Words: Sendable {
        var fact: String
        var people: String
        /// "%@: %d photos in %@" — a member, how many of the collages' photos are theirs, and where.
        var share: @Sendable (String, Int, String) -> String
        var footer: String
    }

    static let words: [String: Words] = [
        "en": Words(
            fact: "Did you know?", people: "Who did what",
            share: { name, count, missions in "\(name): \(count) photo\(count == 1 ? "" : "s") (\(missions))" },
            footer: "Made with Groupie"
        ),
        "fr": Words(
            fact: "Le savais-tu ?", people: "Qui a fait quoi",
            share: { name, count, missions in "\(name) : \(count) photo\(count == 1 ? "" : "s") (\(missions))" },
            footer: "Fait avec Groupie"
        ),
        "sv": Words(
            fact: "Visste du?", people: "Vem gjorde vad",
            share: { name, count, missions in "\(name): \(count) foto\(count == 1 ? "" : "n") (\(missions))" },
            footer: "Gjort med Groupie"
        ),
        "ar": Words(
            fact: "هل تعلم؟", people: "من فعل ماذا",
            share: { name, count, missions in "\(name): \(count) \(count == 1 ? "صورة" : "صور") (\(missions))" },
            footer: "صُنع باستخدام Groupie"
        ),
        "ja": Words(
            fact: "知ってた？", people: "だれが何をしたか",
            share: { name, count, missions in "\(name)：写真\(count)枚（\(missions)）" },
            footer: "Groupieで作りました"
        ),
    ]

    static func words(for language: String) -> Words {
        words[String(language.lowercased().prefix { $0 != "-" })] ?? words["en"]!
    }

    /// The page: the group's name, the venue and the day of the last photo (else of the group's
    /// start) in the venue's time zone, the chapters with their collages at `images`, who did what.
    /// Each line that mixes Groupie's words with names, titles or dates runs in the direction of
    /// the page's language, with each of them isolated within it, so that an Arabic name cannot
    /// turn an English line around, nor an English one an Arabic line. A text of one piece (a
    /// title, a fact) takes the direction of its own first letter.
    static func page(_ recap: Recap, images: [String], group: Group, venue: Venue, language: String, logoPath: String?) -> RecapPage {
        let words = words(for: language)
        let venueName = venue.name.resolved(language: language, fallback: venue.defaultLanguage)
        func line(_ text: String) -> String { Bidi.lines(text, language: language) }
        let chapters = zip(recap.chapters, images).map { chapter, image in
            RecapPage.Chapter(
                title: chapter.title, imagePath: image, fact: chapter.fact,
                credits: line(chapter.credits.map { "\(Bidi.isolate($0.prompt)): \(Bidi.isolate($0.name))" }.joined(separator: " · "))
            )
        }
        let day = CollageTool.day(recap.lastPhotoAt ?? group.createdAt, venue: venue, language: language)
        return RecapPage(
            title: group.name ?? venueName, subtitle: line("\(Bidi.isolate(venueName)) · \(Bidi.isolate(day))"),
            language: language, colour: venue.theme.color, logoPath: logoPath, factLabel: line(words.fact), peopleLabel: line(words.people),
            people: recap.contributions.map {
                line(words.share(Bidi.isolate($0.name), $0.tasks, $0.missions.map(Bidi.isolate).joined(separator: ", ")))
            },
            chapters: chapters, footer: line(words.footer), paper: venue.paper
        )
    }
}
