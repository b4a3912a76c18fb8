import Foundation
import GroupieContent
import GroupieCore
import GroupieImaging
import Hummingbird

/// The stickers of a venue's found-it codes: four to an A4 page, each with its mission's title,
/// the code in big letters and as a QR code (of the code alone, which a phone's scan reads),
/// for staff to print and stick at the exhibits. Drawn as the table cards are.
enum StaffCodeStickers {
    /// Each code task of the venue, in the file's order: its mission and its code.
    static func codes(of venue: Venue) -> [(mission: Mission, task: MissionTask, code: String)] {
        venue.missions.flatMap { mission in
            mission.tasks.compactMap { task in
                if case .code(let code) = task.kind { (mission, task, code.code) } else { nil }
            }
        }
    }

    static let instructions: [String: String] = [
        "en": "You found it! Scan this code in your mission, or type it.",
        "sv": "Ni hittade den! Skanna koden i ert uppdrag, eller skriv den.",
        "fr": "Trouvé ! Scannez ce code dans votre mission, ou tapez-le.",
        "de": "Gefunden! Scanne diesen Code in deiner Mission oder gib ihn ein.",
    ]

    static func sheet(for venue: Venue, assetsDirectory: String) -> TableCards {
        let language = venue.defaultLanguage
        let base = String(language.lowercased().prefix { $0 != "-" })
        let poster = StaffPosterController.poster(for: venue, url: "", assetsDirectory: assetsDirectory)
        return TableCards(
            venueName: venue.name.resolved(language: language, fallback: language), colour: poster.colour, logoPath: poster.logoPath,
            instruction: instructions[base].map { (language, $0) } ?? ("en", instructions["en"]!),
            cards: codes(of: venue).map { entry in
                TableCards.Card(groupName: entry.mission.title.resolved(language: language, fallback: language), code: entry.code, url: entry.code)
            }
        )
    }
}

extension StaffPosterController {
    func codeStickers(_ request: Request, context: StaffContext) async throws -> Response {
        let session = context.session
        let venueId = try context.parameters.require("venueId")
        guard session.member.may(.view, at: venueId), let venue = catalog.venue(id: venueId)?.venue else { throw StaffController.venueNotFound }
        guard !StaffCodeStickers.codes(of: venue).isEmpty else {
            throw Problem.notFound("no-code-tasks", "The venue's missions have no found-it code to print.")
        }
        let sheet = StaffCodeStickers.sheet(for: venue, assetsDirectory: assetsDirectory)
        let bytes = try await fileIO.drawn("stickers", fileExtension: "pdf") { path in try sheet.render(to: path) }
        return Response(
            status: .ok,
            headers: [.contentType: "application/pdf", .contentDisposition: "inline; filename=\"\(venue.id)-code-stickers.pdf\""],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }
}
