import Foundation
import GroupieContent
import GroupieCore
import Hummingbird

/// An admin starts a new venue: its file written into the missions folder from a template (one
/// mission of one task, in the languages chosen), kept as its first version, then opened in the
/// editor. A venue id some file already declares is refused.
struct StaffNewVenueController {
    let editor: StaffEditorController
    let assetsDirectory: String

    func addRoutes(to staff: RouterGroup<StaffContext>) {
        staff.get("missions/new", use: form)
        staff.post("missions/new", use: create)
    }

    struct NewVenueView: Sendable {
        let action = StaffURL.newVenue.path
        let id: String
        let name: String
        let timeZone: String
        let languages: String
        let message: String?
    }

    func requireAdmin(_ session: StaffSession) throws {
        guard session.member.role == .admin else { throw StaffController.notAllowed(session.member.role) }
    }

    func form(_ request: Request, context: StaffContext) async throws -> Response {
        try requireAdmin(context.session)
        return editor.pages.page("staff-new-venue", title: "A new venue", session: context.session, NewVenueView(
            id: "", name: "", timeZone: "Europe/Stockholm", languages: "en", message: nil
        ))
    }

    func create(_ request: Request, context: StaffContext) async throws -> Response {
        let session = context.session
        try requireAdmin(session)
        let form = try await StaffForm(request, context: context)
        try form.requireToken(of: session)
        let id = (form["id"] ?? "").trimmingCharacters(in: .whitespaces)
        let name = (form["name"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let timeZone = (form["timezone"] ?? "").trimmingCharacters(in: .whitespaces)
        let languages = (form["languages"] ?? "").split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
        func refuse(_ message: String, status: HTTPResponse.Status = .unprocessableContent) -> Response {
            editor.pages.page("staff-new-venue", title: "A new venue", session: session, status: status, NewVenueView(
                id: id, name: name, timeZone: timeZone, languages: languages.joined(separator: ", "), message: message
            ))
        }
        guard Identifier.isValid(id) else { return refuse("The id is lowercase letters a–z, digits and hyphens, such as 'city-museum'.") }
        guard !name.isEmpty, name.count <= 100 else { return refuse("Give the venue a name of 1 to 100 characters.") }
        guard TimeZone(identifier: timeZone) != nil else { return refuse("'\(timeZone)' is not a time zone; write one such as Europe/Stockholm.") }
        guard !languages.isEmpty, languages.count <= 8, languages.allSatisfy(LanguageCode.isValid) else {
            return refuse("List the venue's languages as codes, such as 'sv, en'.")
        }
        let folder = editor.editing.reloader.folder
        let path = folder.directory + "/" + id + ".yaml"
        let assets = assetsDirectory
        let (declared, icon) = try await editor.editing.fileIO.run {
            (try folder.declaredVenueIds()[id], Self.firstIcon(in: assets))
        }
        guard declared == nil else { return refuse("A file already declares the venue '\(id)'.", status: .conflict) }
        let text = Self.template(id: id, name: name, timeZone: timeZone, languages: languages, icon: icon)
        let outcome = try await editor.editing.save(
            text, venueId: id, path: path, base: "", confirmed: true, by: session.member, note: "new venue from the template"
        )
        switch outcome {
        case .saved(let version): return StaffController.redirect(to: .editor(venueId: id, saved: version.number))
        case .changedOnDisk: return refuse("The file \(id).yaml exists already.", status: .conflict)
        case .problems(let problems): return refuse("The template does not make a valid file here: \(problems.first?.message ?? "")")
        case .dropsPhotos: return refuse("Groups played a venue of this id; choose another id.", status: .conflict)
        }
    }

    /// The first icon of the assets folder, so that the template names a picture that exists.
    static func firstIcon(in assets: String) -> String {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: assets + "/icons")) ?? []).filter { !$0.hasPrefix(".") }.sorted()
        return names.first { !$0.contains(" ") }.map { "icons/" + $0 } ?? "icons/first-mission.png"
    }

    /// A YAML string: double-quoted, as JSON writes it.
    static func quoted(_ text: String) -> String {
        (try? String(decoding: JSONEncoder().encode(text), as: UTF8.self)) ?? "\"\""
    }

    static func template(id: String, name: String, timeZone: String, languages: [String], icon: String) -> String {
        func text(_ value: String, indent: String) -> String {
            languages.count == 1 ? " " + quoted(value) : "\n" + languages.map { "\(indent)\($0): \(quoted(value))" }.joined(separator: "\n")
        }
        return """
        # \(name): missions for visitors. The guide for staff: missions/README.md
        # Titles and texts may change at any time; an id (id: ...) may not once groups play.

        id: \(id)
        name:\(text(name, indent: "  "))
        languages: [\(languages.joined(separator: ", "))]
        timezone: \(timeZone)
        theme:
          color: "#1f5d8c"

        missions:
          - id: first-mission
            title:\(text("The first mission", indent: "      "))
            icon: \(icon)
            tasks:
              - id: first-task
                prompt:\(text("Take a photo of your group at the entrance.", indent: "          "))

        """
    }
}
