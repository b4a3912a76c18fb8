import Foundation
import GroupieContent
import GroupieCore
import GroupieStorage
import Hummingbird
import Synchronization

/// The mission file edited in the browser: the file's text with its problems checked by the
/// server as it is typed, the mission at the cursor as phones show it, and Save, which writes
/// the file only when it has no problems and over the version the editor opened.
struct StaffEditorController {
    let catalog: VenueCatalog
    let editing: MissionEditing
    let drafts: DraftVenues
    let work: ImageWorkQueue
    let assetsDirectory: String
    let pages: StaffPages

    func addRoutes(to staff: RouterGroup<StaffContext>) {
        staff.get("venues/{venueId}/missions/edit", use: edit)
        staff.post("venues/{venueId}/missions/check", use: check)
        staff.post("venues/{venueId}/missions/save", use: save)
        staff.get("venues/{venueId}/missions/draft/{hash}/{missionId}/reward.jpg", use: draftReward)
        staff.get("venues/{venueId}/missions/versions", use: versions)
        staff.get("venues/{venueId}/missions/versions/diff", use: diff)
        staff.post("venues/{venueId}/missions/versions/{number}/restore", use: restore)
    }

    /// The venue's file for a member who may edit it: a venue of theirs, its file served now
    /// or declared by a file of the folder that has errors. Its path comes from the folder's
    /// listing, never from the request.
    func file(_ context: StaffContext) async throws -> (venueId: String, path: String, venue: Venue?) {
        let session = context.session
        let venueId = try context.parameters.require("venueId")
        guard Identifier.isValid(venueId), session.member.may(.view, at: venueId) else { throw StaffController.venueNotFound }
        guard session.member.may(.editMissions, at: venueId) else { throw StaffController.notAllowed(session.member.role) }
        if let entry = catalog.venue(id: venueId) { return (venueId, entry.path, entry.venue) }
        let folder = editing.reloader.folder
        guard let path = try await editing.fileIO.run({ try folder.declaredVenueIds()[venueId] }) else { throw StaffController.venueNotFound }
        return (venueId, path, nil)
    }

    func edit(_ request: Request, context: StaffContext) async throws -> Response {
        let (venueId, path, venue) = try await file(context)
        let opened: (text: String, hash: String)?
        do {
            opened = try await editing.fileIO.run { try MissionFileWriter.current(path) }
        } catch let tooLarge as MissionFileTooLarge {
            throw Problem(.unprocessableContent, code: "mission-file-too-large", detail: "\(tooLarge) Edit it on disk.")
        }
        guard let current = opened else { throw StaffController.venueNotFound }
        // `saved`: the version just saved, which the page names; anything else is a wrong link.
        let saved = try request.uri.queryParameters["saved"].map { value in
            guard let number = Int(String(value)), (1...999_999).contains(number) else { throw Problem.badRequest("invalid-version", "saved is a version's number.") }
            return number
        }
        return pages.editor(.init(
            venueId: venueId, path: path, venue: venue, text: current.text, base: current.hash,
            problems: editing.check(current.text, path: path).problems, saved: saved
        ), session: context.session)
    }

    /// The problems of the text posted (`text`), as JSON, and the mission at line `line` as
    /// phones show it in each language when the text has no errors.
    func check(_ request: Request, context: StaffContext) async throws -> Response {
        let (venueId, path, _) = try await file(context)
        let form = try await StaffForm.editor(request, context: context)
        try form.requireToken(of: context.session)
        let text = Self.text(of: form)
        let report = editing.check(text, path: path)
        let name = (path as NSString).lastPathComponent
        var mission: EditorCheck.MissionPreview?
        if let venue = report.venue, let line = form["line"].flatMap({ Int($0) }), let id = MissionFileOutline.mission(at: line, in: text),
            let found = venue.mission(id: id)
        {
            drafts.keep(venue, hash: report.contentHash)
            mission = .init(id: id, languages: venue.languages.map { language in
                StaffPages.card(found, venue: venue, language: language, picture: StaffURL.draftReward(
                    venueId: venueId, hash: report.contentHash, missionId: id, language: language
                ).path)
            })
        }
        let answer = EditorCheck(
            file: name, hash: report.contentHash,
            problems: report.problems.map { .init(line: $0.line, column: $0.column, severity: $0.severity.rawValue, message: $0.message) },
            mission: mission
        )
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(answer))))
    }

    /// The reward of a mission of a text checked a moment ago, drawn from stand-in photos.
    func draftReward(_ request: Request, context: StaffContext) async throws -> Response {
        let venueId = try await file(context).venueId
        guard let venue = drafts.venue(hash: try context.parameters.require("hash")), venue.id == venueId,
            let mission = venue.mission(id: try context.parameters.require("missionId"))
        else { throw Problem.notFound("draft-not-found", "Check the file again: this draft is no longer kept.") }
        let language = request.uri.queryParameters["lang"].map(String.init) ?? venue.defaultLanguage
        guard venue.languages.contains(language) else {
            throw Problem(.badRequest, code: "invalid-language", detail: "'lang' is one of the venue's languages: \(venue.languages.joined(separator: ", ")).")
        }
        let assetsDirectory = self.assetsDirectory
        let bytes = try await work.run { try StaffMissionsController.preview(venue: venue, mission: mission, language: language, assetsDirectory: assetsDirectory) }
        return Response(
            status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "private, max-age=3600"], body: .init(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }

    /// The form's `text` with the line breaks a file has: browsers send a text area's as CRLF.
    static func text(of form: StaffForm) -> String {
        (form["text"] ?? "").replacingOccurrences(of: "\r\n", with: "\n")
    }

    func save(_ request: Request, context: StaffContext) async throws -> Response {
        let (venueId, path, venue) = try await file(context)
        let form = try await StaffForm.editor(request, context: context)
        try form.requireToken(of: context.session)
        let text = Self.text(of: form)
        let base = form["base"] ?? ""
        let outcome = try await editing.save(text, venueId: venueId, path: path, base: base, confirmed: form["confirm"] == "yes", by: context.session.member)
        return try await answer(outcome, venueId: venueId, path: path, venue: venue, text: text, base: base, session: context.session)
    }

    /// After a save: back to the editor with the version saved, or the editor again with the
    /// text as typed and why it was not saved.
    func answer(
        _ outcome: MissionEditing.Outcome, venueId: String, path: String, venue: Venue?, text: String, base: String, session: StaffSession
    ) async throws -> Response {
        var state = StaffPages.EditorState(
            venueId: venueId, path: path, venue: venue, text: text, base: base, problems: editing.check(text, path: path).problems, saved: nil
        )
        switch outcome {
        case .saved(let version):
            return StaffController.redirect(to: .editor(venueId: venueId, saved: version.number))
        case .problems:
            return pages.editor(state, session: session, status: .unprocessableContent)
        case .changedOnDisk(let current, let hash):
            state.conflict = .init(text: current, hash: hash)
            return pages.editor(state, session: session, status: .conflict)
        case .dropsPhotos(let drops):
            state.drops = drops
            return pages.editor(state, session: session, status: .conflict)
        }
    }
}

/// What the editor's page asks while typing.
struct EditorCheck: Encodable {
    struct Problem: Encodable {
        let line: Int
        let column: Int
        let severity: String
        let message: String
    }
    struct MissionPreview: Encodable {
        let id: String
        let languages: [StaffPages.MissionsView.Card]
    }
    let file: String
    let hash: String
    let problems: [Problem]
    let mission: MissionPreview?
}

/// The venues of the texts checked last, by hash, so that the reward of a mission being typed
/// can be drawn; a few are kept, the oldest dropped first.
final class DraftVenues: Sendable {
    private let kept = Mutex<[(hash: String, venue: Venue)]>([])
    static let capacity = 32

    func keep(_ venue: Venue, hash: String) {
        kept.withLock { kept in
            kept.removeAll { $0.hash == hash }
            kept.append((hash, venue))
            if kept.count > Self.capacity { kept.removeFirst(kept.count - Self.capacity) }
        }
    }

    func venue(hash: String) -> Venue? {
        kept.withLock { kept in kept.last { $0.hash == hash }?.venue }
    }
}

extension StaffForm {
    /// The editor's forms carry a whole mission file: each byte may take three when encoded.
    static let editorBytes = 3 * MissionFileReader.maxFileSize + 64 * 1024

    static func editor(_ request: Request, context: some RequestContext) async throws -> StaffForm {
        try await StaffForm(request, context: context, limit: editorBytes)
    }
}
