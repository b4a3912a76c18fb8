import Foundation
import GroupieContent
import GroupieCore
import GroupieImaging
import GroupieStorage
import Hummingbird

/// A venue's start poster, as PDF or PNG, in A4 or A3: what staff print and put at the entrance.
struct StaffPosterController {
    let database: GroupieDatabase
    let catalog: VenueCatalog
    let links: JoinLinks
    let assetsDirectory: String
    let fileIO: FileIO
    let clock: @Sendable () -> Date

    /// PNG posters are drawn at this resolution: sharp in print, a few MB.
    static let pngDPI = 150

    func addRoutes(to staff: RouterGroup<GroupieRequestContext>) {
        staff.get("venues/{venueId}/poster.pdf", use: pdf)
        staff.get("venues/{venueId}/poster.png", use: png)
    }

    func pdf(_ request: Request, context: GroupieRequestContext) async throws -> Response {
        try await poster(request, context: context, format: .pdf, mediaType: "application/pdf", fileExtension: "pdf")
    }

    func png(_ request: Request, context: GroupieRequestContext) async throws -> Response {
        try await poster(request, context: context, format: .png(dpi: Self.pngDPI), mediaType: "image/png", fileExtension: "png")
    }

    private func poster(_ request: Request, context: GroupieRequestContext, format: Poster.Format, mediaType: String, fileExtension: String) async throws -> Response {
        let session = try context.staff
        let venueId = try context.parameters.require("venueId")
        guard session.member.may(.view, at: venueId), let venue = catalog.venue(id: venueId)?.venue else { throw StaffController.venueNotFound }
        let paperName = request.uri.queryParameters["paper"].map(String.init) ?? "a4"
        guard let paper = Poster.Paper(rawValue: paperName) else {
            throw Problem(.badRequest, code: "invalid-paper", detail: "'paper' is a4 or a3.")
        }
        let poster = Self.poster(for: venue, url: links.baseURL + "/?venue=" + venue.id, assetsDirectory: assetsDirectory)
        let bytes = try await fileIO.run {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-poster-\(UUID().uuidString).\(fileExtension)").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            try poster.render(paper: paper, format: format, to: path)
            return try Data(contentsOf: URL(fileURLWithPath: path))
        }
        try await database.audit(.init(at: clock(), staffEmail: session.member.email, venueId: venue.id, action: "poster made", subject: "\(paper.rawValue) \(fileExtension)", reason: nil))
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
