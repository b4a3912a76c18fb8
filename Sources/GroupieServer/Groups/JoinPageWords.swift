import GroupieCore

/// The words of the group's preview on `/j/{code}`, in the web client's languages, so that the
/// page a QR code opens reads in the phone's language, right to left in Arabic, before the
/// scripts have loaded and taken over.
struct JoinPageWords: Sendable {
    /// The web client's interface languages (`assets/web/i18n.js`'s `LANGS`).
    static let languages = ["en", "sv", "fr", "ar", "ja"]

    let language: String
    var direction: String { LanguageCode.isRightToLeft(language) ? "rtl" : "ltr" }

    var group: String
    var code: String
    var typeName: String
    var closed: String
    /// "This group is full: it has %d members…".
    var full: @Sendable (Int) -> String
    /// The page's title for a group's code.
    var join: @Sendable (String) -> String
    var unknownTitle: String
    /// The sentence about an unknown code: what comes before the code, and after it.
    var unknown: (before: String, after: String)
    var limitedTitle: String
    /// "Too many wrong group codes… Try again in %d minutes."
    var limited: @Sendable (Int) -> String

    static func negotiated(acceptLanguage: String?) -> JoinPageWords {
        let language = LanguageNegotiation.choose(explicit: nil, acceptLanguage: acceptLanguage, offered: languages)
        return all[language] ?? all["en"]!
    }

    /// The words for a group's page at a venue speaking `venueLanguages`, chosen as the web
    /// client chooses its one language (`pickLang`): the phone's first language that both the
    /// client and the venue speak; else English where the venue has it, else the venue's first
    /// language the client speaks, else English. A Japanese phone at a venue without Japanese
    /// reads the page, and the venue's name, in English.
    static func negotiated(acceptLanguage: String?, venueLanguages: [String]) -> JoinPageWords {
        var both: [String] = []
        for code in venueLanguages.map(LanguageCode.base) where languages.contains(code) && !both.contains(code) { both.append(code) }
        guard !both.isEmpty else { return all["en"]! }
        // English first where the venue has it: the fallback when no range of the phone's matches.
        if let english = both.firstIndex(of: "en") { both.insert(both.remove(at: english), at: 0) }
        return all[LanguageNegotiation.choose(explicit: nil, acceptLanguage: acceptLanguage, offered: both)] ?? all["en"]!
    }

    static let all: [String: JoinPageWords] = [
        "en": JoinPageWords(
            language: "en", group: "Group", code: "Group code", typeName: "Type your name to join the group.",
            closed: "This group can no longer be joined; start a new one.",
            full: { "This group is full: it has \($0) members, as many as the venue allows. Start a group of your own." },
            join: { "Join \($0)" }, unknownTitle: "Unknown group code",
            unknown: ("No group has the code ", ". Check the code with the person who made the group."),
            limitedTitle: "Too many wrong codes",
            limited: { "Too many wrong group codes came from this network. Try again in \($0 == 1 ? "a minute" : "\($0) minutes")." }
        ),
        "sv": JoinPageWords(
            language: "sv", group: "Grupp", code: "Gruppkod", typeName: "Skriv ditt namn för att gå med i gruppen.",
            closed: "Den här gruppen går inte längre att gå med i; starta en ny.",
            full: { "Gruppen är full: den har \($0) medlemmar, så många som platsen tillåter. Starta en egen grupp." },
            join: { "Gå med i \($0)" }, unknownTitle: "Okänd gruppkod",
            unknown: ("Ingen grupp har koden ", ". Kontrollera koden med den som skapade gruppen."),
            limitedTitle: "För många felaktiga koder",
            limited: { "För många felaktiga gruppkoder kom från det här nätverket. Försök igen om \($0 == 1 ? "en minut" : "\($0) minuter")." }
        ),
        "fr": JoinPageWords(
            language: "fr", group: "Groupe", code: "Code du groupe", typeName: "Saisissez votre prénom pour rejoindre le groupe.",
            closed: "Ce groupe ne peut plus être rejoint ; créez-en un nouveau.",
            full: { "Ce groupe est complet : il a \($0) membres, autant que le lieu le permet. Créez votre propre groupe." },
            join: { "Rejoindre \($0)" }, unknownTitle: "Code de groupe inconnu",
            unknown: ("Aucun groupe n’a le code ", ". Vérifiez-le avec la personne qui a créé le groupe."),
            limitedTitle: "Trop de codes erronés",
            limited: { "Trop de codes de groupe erronés sont venus de ce réseau. Réessayez dans \($0 == 1 ? "une minute" : "\($0) minutes")." }
        ),
        "ar": JoinPageWords(
            language: "ar", group: "المجموعة", code: "رمز المجموعة", typeName: "اكتب اسمك للانضمام إلى المجموعة.",
            closed: "لم يعد ممكنًا الانضمام إلى هذه المجموعة؛ ابدأ مجموعة جديدة.",
            full: { "هذه المجموعة ممتلئة: فيها \($0) أعضاء، وهو أقصى ما يسمح به المكان. ابدأ مجموعتك الخاصة." },
            join: { "انضم إلى \($0)" }, unknownTitle: "رمز مجموعة غير معروف",
            unknown: ("لا توجد مجموعة بالرمز ", ". تحقّق من الرمز مع من أنشأ المجموعة."),
            limitedTitle: "رموز خاطئة كثيرة جدًا",
            limited: { "وصلت رموز مجموعات خاطئة كثيرة من هذه الشبكة. حاول مرة أخرى بعد \($0) دقيقة." }
        ),
        "ja": JoinPageWords(
            language: "ja", group: "グループ", code: "グループコード", typeName: "名前を入力してグループに参加しましょう。",
            closed: "このグループにはもう参加できません。新しいグループを作りましょう。",
            full: { "このグループは満員です（\($0)人、会場の上限です）。自分のグループを作りましょう。" },
            join: { "\($0)に参加" }, unknownTitle: "不明なグループコード",
            unknown: ("コード ", " のグループはありません。グループを作った人にコードを確かめてください。"),
            limitedTitle: "間違ったコードが多すぎます",
            limited: { "このネットワークから間違ったグループコードが多すぎました。\($0)分後にもう一度試してください。" }
        ),
    ]
}
