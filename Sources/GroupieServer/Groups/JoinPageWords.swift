import GroupieCore

/// The words of the group's preview on `/j/{code}`, in the web client's languages, so that the
/// page a QR code opens reads in the phone's language, right to left in Arabic, before the
/// scripts have loaded and taken over.
struct JoinPageWords: Sendable {
    /// The web client's interface languages (`assets/web/i18n.js`'s `LANGS`).
    static let languages = ["en", "sv", "fr", "ar", "ja"]
    static let rightToLeft: Set<String> = ["ar"]

    let language: String
    var direction: String { Self.rightToLeft.contains(language) ? "rtl" : "ltr" }

    var group: String
    var code: String
    var typeName: String
    var closed: String
    /// "This group is full: it has %d members…".
    var full: @Sendable (Int) -> String

    static func negotiated(acceptLanguage: String?) -> JoinPageWords {
        let language = LanguageNegotiation.choose(explicit: nil, acceptLanguage: acceptLanguage, offered: languages)
        return all[language] ?? all["en"]!
    }

    static let all: [String: JoinPageWords] = [
        "en": JoinPageWords(
            language: "en", group: "Group", code: "Group code", typeName: "Type your name to join the group.",
            closed: "This group can no longer be joined; start a new one.",
            full: { "This group is full: it has \($0) members, as many as the venue allows. Start a group of your own." }
        ),
        "sv": JoinPageWords(
            language: "sv", group: "Grupp", code: "Gruppkod", typeName: "Skriv ditt namn för att gå med i gruppen.",
            closed: "Den här gruppen går inte längre att gå med i; starta en ny.",
            full: { "Gruppen är full: den har \($0) medlemmar, så många som platsen tillåter. Starta en egen grupp." }
        ),
        "fr": JoinPageWords(
            language: "fr", group: "Groupe", code: "Code du groupe", typeName: "Saisissez votre prénom pour rejoindre le groupe.",
            closed: "Ce groupe ne peut plus être rejoint ; créez-en un nouveau.",
            full: { "Ce groupe est complet : il a \($0) membres, autant que le lieu le permet. Créez votre propre groupe." }
        ),
        "ar": JoinPageWords(
            language: "ar", group: "المجموعة", code: "رمز المجموعة", typeName: "اكتب اسمك للانضمام إلى المجموعة.",
            closed: "لم يعد ممكنًا الانضمام إلى هذه المجموعة؛ ابدأ مجموعة جديدة.",
            full: { "هذه المجموعة ممتلئة: فيها \($0) أعضاء، وهو أقصى ما يسمح به المكان. ابدأ مجموعتك الخاصة." }
        ),
        "ja": JoinPageWords(
            language: "ja", group: "グループ", code: "グループコード", typeName: "名前を入力してグループに参加しましょう。",
            closed: "このグループにはもう参加できません。新しいグループを作りましょう。",
            full: { "このグループは満員です（\($0)人、会場の上限です）。自分のグループを作りましょう。" }
        ),
    ]
}
