import Foundation
import GroupieContent
import GroupieCore
import GroupieImaging
import GroupieStorage
import Hummingbird

/// A venue's start poster, as PDF or PNG, in A4 or A3: what staff print and put at the entrance.
struct StaffPosterController {
    let database: any GroupieStore
    let catalog: VenueCatalog
    let links: JoinLinks
    let assetsDirectory: String
    let fileIO: FileIO
    let committed: Committed
    let clock: @Sendable () -> Date

    /// PNG posters are drawn at this resolution: sharp in print, a few MB.
    static let pngDPI = 150

    func addRoutes(to staff: RouterGroup<StaffContext>) {
        staff.get("venues/{venueId}/poster.pdf", use: pdf)
        staff.get("venues/{venueId}/poster.png", use: png)
        staff.post("venues/{venueId}/cards", use: cards)
        staff.get("venues/{venueId}/code-stickers.pdf", use: codeStickers)
    }

    /// At most this many groups are made in advance at once: a large class, several times over.
    static let maximumCards = 40

    /// Makes `count` groups in advance, named `<name> 1` to `<name> N`, as one batch (a class,
    /// with the label staff typed, if any), and answers their table cards as one PDF. Each
    /// card's QR code opens its group's join page.
    func cards(_ request: Request, context: StaffContext) async throws -> Response {
        let session = context.session
        let form = try await StaffForm(request, context: context)
        try form.requireToken(of: session)
        let venueId = try context.parameters.require("venueId")
        guard session.member.may(.view, at: venueId), let venue = catalog.venue(id: venueId)?.venue else { throw StaffController.venueNotFound }
        guard session.member.may(.moderate, at: venueId) else { throw StaffController.notAllowed(session.member.role) }
        guard let count = form["count"].flatMap({ Int($0) }), (1...Self.maximumCards).contains(count) else {
            throw Problem(.unprocessableContent, code: "invalid-count", detail: "Make 1 to \(Self.maximumCards) cards at once.")
        }
        // The cards of a batch speak one of the venue's languages, the one staff chose for the class.
        let language = form["language"] ?? venue.defaultLanguage
        guard venue.languages.contains(language) || language == venue.defaultLanguage else {
            throw Problem(
                .unprocessableContent, code: "invalid-language", detail: "Choose one of the venue's languages: \(venue.languages.joined(separator: ", "))."
            )
        }
        let prefix = (form["name"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let names = try (1...count).map { number -> String in
            switch DisplayName.validated("\(prefix.isEmpty ? "Table" : prefix) \(number)", limits: DisplayName.group) {
            case .success(let name): return name
            case .failure: throw Problem(.unprocessableContent, code: "invalid-name", detail: "The name of the groups must be 1 to 36 visible characters.")
            }
        }
        let label = try Self.batchLabel(form["label"])
        let batch = try await database.createGroupBatch(
            venueId: venue.id, names: names, label: label, joinableFor: TimeInterval(venue.rules.joinableHours * 3600), now: clock()
        )
        let groups = batch.groups
        for group in groups { committed.groupCreated(groupId: group.id) }
        let poster = Self.poster(for: venue, url: "", assetsDirectory: assetsDirectory)
        let base = String(language.lowercased().prefix { $0 != "-" })
        let sheet = TableCards(
            venueName: venue.name.resolved(language: language, fallback: venue.defaultLanguage), colour: poster.colour, logoPath: poster.logoPath,
            instruction: Self.cardInstructions[base].map { (language, $0) } ?? ("en", Self.cardInstructions["en"]!),
            cards: groups.map { TableCards.Card(groupName: $0.name ?? "", code: $0.joinCode.value, url: links.url($0.joinCode)) }
        )
        let bytes = try await fileIO.drawn("cards", fileExtension: "pdf") { path in try sheet.render(to: path) }
        try await database.audit(.init(
            at: clock(), staffEmail: session.member.email, venueId: venue.id, action: .tableCardsMade,
            subject: (label.map { "\($0): " } ?? "") + "\(EnglishCount.of(count, "group")): \(names.first ?? "") to \(names.last ?? "") (\(language))", reason: nil
        ))
        return Response(
            status: .ok,
            headers: [.contentType: "application/pdf", .contentDisposition: "attachment; filename=\"\(venue.id)-table-cards.pdf\""],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }

    /// What staff call a class's batch ("Class 4B, 09:10"): nil when they typed nothing.
    static func batchLabel(_ raw: String?) throws -> String? {
        guard let raw, !raw.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
        switch DisplayName.validated(raw, limits: .init(characters: GroupBatch.labelLimit, bytes: GroupBatch.labelLimit * 4)) {
        case .success(let label): return label
        case .failure:
            throw Problem(.unprocessableContent, code: "invalid-label", detail: "The class's label must be at most \(GroupBatch.labelLimit) visible characters.")
        }
    }

    static let cardInstructions: [String: String] = [
        "en": "Scan the code to join your group, or type the code at the start page.",
        "sv": "Skanna koden för att gå med i din grupp, eller skriv koden på startsidan.",
        "fr": "Scannez le code pour rejoindre votre groupe, ou tapez le code sur la page d'accueil.",
        "de": "Scanne den Code, um deiner Gruppe beizutreten, oder gib den Code auf der Startseite ein.",
    ]

    func pdf(_ request: Request, context: StaffContext) async throws -> Response {
        try await poster(request, context: context, format: .pdf, mediaType: "application/pdf", fileExtension: "pdf")
    }

    func png(_ request: Request, context: StaffContext) async throws -> Response {
        try await poster(request, context: context, format: .png(dpi: Self.pngDPI), mediaType: "image/png", fileExtension: "png")
    }

    private func poster(_ request: Request, context: StaffContext, format: Poster.Format, mediaType: String, fileExtension: String) async throws -> Response {
        let session = context.session
        let venueId = try context.parameters.require("venueId")
        guard session.member.may(.view, at: venueId), let venue = catalog.venue(id: venueId)?.venue else { throw StaffController.venueNotFound }
        let paperName = request.uri.queryParameters["paper"].map(String.init) ?? "a4"
        guard let paper = Poster.Paper(rawValue: paperName) else {
            throw Problem(.badRequest, code: "invalid-paper", detail: "'paper' is a4 or a3.")
        }
        let poster = Self.poster(for: venue, url: links.baseURL + "/?venue=" + venue.id, assetsDirectory: assetsDirectory)
        let bytes = try await fileIO.drawn("poster", fileExtension: fileExtension) { path in try poster.render(paper: paper, format: format, to: path) }
        try await database.audit(.init(at: clock(), staffEmail: session.member.email, venueId: venue.id, action: .posterMade, subject: "\(paper.rawValue) \(fileExtension)", reason: nil))
        return Response(
            status: .ok,
            headers: [.contentType: mediaType, .contentDisposition: "inline; filename=\"\(venue.id)-poster-\(paper.rawValue).\(fileExtension)\""],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }

    /// The venue's title in its first language, and the instructions in each of its languages
    /// Groupie has them in (English for the others, once).
    static func poster(for venue: Venue, url: String, assetsDirectory: String) -> Poster {
        var instructions: [(language: String, text: String)] = []
        for language in venue.languages {
            let base = String(language.lowercased().prefix { $0 != "-" })
            let text = Self.instructions[base] ?? Self.instructions["en"]!
            if !instructions.contains(where: { $0.text == text }) { instructions.append((language, text)) }
        }
        if instructions.isEmpty { instructions = [("en", Self.instructions["en"]!)] }
        return Poster(
            title: venue.name.resolved(language: venue.defaultLanguage, fallback: venue.defaultLanguage),
            instructions: instructions, colour: venue.theme.color,
            logoPath: venue.theme.logo.map { assetsDirectory + "/" + $0 }, url: url
        )
    }

    static let instructions: [String: String] = [
        "en": "Scan the code with your phone's camera, type your name and start a group. Photograph the missions together!",
        "sv": "Skanna koden med mobilens kamera, skriv ditt namn och starta en grupp. Fota uppdragen tillsammans!",
        "fr": "Scannez le code avec l'appareil photo de votre téléphone, tapez votre prénom et créez un groupe. Photographiez les missions ensemble !",
        "de": "Scanne den Code mit der Kamera deines Handys, gib deinen Namen ein und starte eine Gruppe. Fotografiert die Missionen gemeinsam!",
        "es": "Escanea el código con la cámara del móvil, escribe tu nombre y crea un grupo. ¡Fotografiad las misiones juntos!",
        "fi": "Skannaa koodi puhelimen kameralla, kirjoita nimesi ja aloita ryhmä. Kuvatkaa tehtävät yhdessä!",
        "nb": "Skann koden med mobilkameraet, skriv navnet ditt og start en gruppe. Ta bilder av oppdragene sammen!",
        "da": "Scan koden med telefonens kamera, skriv dit navn og start en gruppe. Fotografér missionerne sammen!",
    ]
}
