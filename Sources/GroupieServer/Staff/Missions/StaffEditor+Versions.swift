import Foundation
import GroupieContent
import GroupieCore
import Hummingbird

/// The versions saved from the console: who saved each and when, the differences between any
/// two, and any of them put back (saved again as a new version, with the same checks).
extension StaffEditorController {
    func versions(_ request: Request, context: StaffContext) async throws -> Response {
        let (venueId, path, venue) = try await file(context)
        let history = editing.history
        let (versions, pruned, current) = try await editing.fileIO.run {
            (try history.versions(venueId: venueId), try history.pruned(venueId: venueId), try MissionFileWriter.current(path))
        }
        return pages.versions(venueId: venueId, venue: venue, versions: versions, pruned: pruned, currentHash: current?.hash ?? "", session: context.session)
    }

    func diff(_ request: Request, context: StaffContext) async throws -> Response {
        let (venueId, _, venue) = try await file(context)
        let query = request.uri.queryParameters
        guard let from = query["from"].flatMap({ Int(String($0)) }), let to = query["to"].flatMap({ Int(String($0)) }) else {
            throw Problem(.badRequest, code: "invalid-versions", detail: "Name two versions: 'from' and 'to'.")
        }
        let history = editing.history
        let texts = try await editing.fileIO.run { (try history.text(venueId: venueId, number: from), try history.text(venueId: venueId, number: to)) }
        guard let old = texts.0, let new = texts.1 else { throw Problem.notFound("version-not-found", "The file has no such version.") }
        return pages.diff(venueId: venueId, venue: venue, from: from, to: to, old: old, new: new, session: context.session)
    }

    /// Puts version `number` back as the file, over the version on disk the page was drawn on
    /// (`base`): checked, warned about and kept as any save is.
    func restore(_ request: Request, context: StaffContext) async throws -> Response {
        let (venueId, path, venue) = try await file(context)
        let form = try await StaffForm(request, context: context)
        try form.requireToken(of: context.session)
        guard let number = Int(try context.parameters.require("number")) else { throw Problem.notFound("version-not-found", "The file has no such version.") }
        let history = editing.history
        guard let text = try await editing.fileIO.run({ try history.text(venueId: venueId, number: number) }) else {
            throw Problem.notFound("version-not-found", "The file has no such version.")
        }
        let base = form["base"] ?? ""
        let outcome = try await editing.save(
            text, venueId: venueId, path: path, base: base, confirmed: form["confirm"] == "yes", by: context.session.member,
            note: "restores version \(number)"
        )
        return try await answer(outcome, venueId: venueId, path: path, venue: venue, text: text, base: base, session: context.session)
    }
}
