import Foundation
import GroupieContent
import GroupieCore
import GroupieImaging
import Hummingbird

/// The pictures a venue's file names (icons, stickers, frames, floor plans, logos), uploaded by
/// its editors into the assets folder under the venue's own folder of each kind
/// (`icons/<venue>/<name>.png`), so that no venue's editor can replace another's pictures.
/// Each is checked as an image (its structure, then libvips reads its header), bounded in size,
/// and stored rebuilt without metadata; SVG is refused, since it may carry scripts.
struct StaffPicturesController {
    let editor: StaffEditorController
    let assetsDirectory: String

    static let kinds = ["icons", "stickers", "frames", "maps", "logos"]
    static let maximumBytes = 2 * 1024 * 1024
    static let limits = PhotoProcessor.Limits(maxPixels: 4096 * 4096, maxDecodedBytes: 4096 * 4096 * 4 * 2, minEdge: 8)

    func addRoutes(to staff: RouterGroup<StaffContext>) {
        staff.get("venues/{venueId}/missions/pictures", use: list)
        staff.post("venues/{venueId}/missions/pictures", use: upload)
    }

    func list(_ request: Request, context: StaffContext) async throws -> Response {
        let (venueId, _, venue) = try await editor.file(context)
        let uploaded = request.uri.queryParameters["uploaded"].map(String.init)
        return try await page(venueId: venueId, venue: venue, message: uploaded.map { "Uploaded: write '\($0)' in the file." }, session: context.session)
    }

    func page(venueId: String, venue: Venue?, message: String?, status: HTTPResponse.Status = .ok, session: StaffSession) async throws -> Response {
        let assets = assetsDirectory
        let pictures = try await editor.editing.fileIO.run {
            Self.kinds.flatMap { kind in
                let folder = "\(kind)/\(venueId)"
                let names = (try? FileManager.default.contentsOfDirectory(atPath: assets + "/" + folder)) ?? []
                return names.filter { !$0.hasPrefix(".") }.sorted().map { folder + "/" + $0 }
            }
        }
        return editor.pages.pictures(.init(
            editURL: StaffURL.editor(venueId: venueId).path, action: StaffURL.pictures(venueId: venueId).path, message: message,
            kinds: Self.kinds, pictures: pictures.map { .init(path: $0, url: "/assets/" + $0) }, hasPictures: !pictures.isEmpty,
            maximum: "\(Self.maximumBytes / 1024 / 1024) MB"
        ), title: "Pictures: \(venue.map(StaffPages.name) ?? venueId)", status: status, session: session)
    }

    func upload(_ request: Request, context: StaffContext) async throws -> Response {
        let (venueId, _, venue) = try await editor.file(context)
        let form = try await MultipartForm(request, limit: Self.maximumBytes + 64 * 1024)
        guard context.session.accepts(formToken: form.fields["csrf"]) else {
            throw Problem(.forbidden, code: "csrf-token-mismatch", detail: "The form is out of date; reload the page and try again.")
        }
        func refuse(_ message: String) async throws -> Response {
            try await page(venueId: venueId, venue: venue, message: message, status: .unprocessableContent, session: context.session)
        }
        guard let kind = form.fields["kind"], Self.kinds.contains(kind) else { return try await refuse("Choose what the picture is for.") }
        guard let bytes = form.file, !bytes.isEmpty else { return try await refuse("Choose a picture to upload.") }
        guard bytes.count <= Self.maximumBytes else { return try await refuse("The picture is larger than \(Self.maximumBytes / 1024 / 1024) MB.") }
        let name = Self.safeName(form.fields["name"].flatMap { $0.isEmpty ? nil : $0 } ?? form.fileName ?? "picture")
        if Self.looksLikeSVG(bytes) { return try await refuse("SVG pictures are not accepted here (they may carry scripts): export the picture as PNG.") }
        guard let format = PhotoFormat.detect(bytes), format != .heif else { return try await refuse("The picture must be a PNG, JPEG or WebP file.") }
        let stored: Data
        do {
            stored = try await editor.work.run { try Self.checked(bytes, format: format) }
        } catch {
            return try await refuse("The file is not a picture that can be used: \(error)")
        }
        let path = "\(kind)/\(venueId)/\(name).\(format == .jpeg ? "jpg" : format.rawValue)"
        let assets = assetsDirectory
        try await editor.editing.fileIO.run {
            try FileManager.default.createDirectory(atPath: assets + "/" + kind + "/" + venueId, withIntermediateDirectories: true)
            try MissionFileWriter.writeAtomically(stored, to: assets + "/" + path, mode: 0o644)
        }
        try await editor.editing.database.audit(.init(
            at: editor.editing.clock(), staffEmail: context.session.member.email, venueId: venueId, action: .pictureUploaded, subject: path, reason: nil
        ))
        // A file that waited for this picture goes live now.
        try await editor.editing.reloadNow()
        return StaffController.redirect(to: .picturesUploaded(venueId: venueId, path: path))
    }

    /// The picture's bytes rebuilt without metadata, once libvips has read its header within bounds.
    static func checked(_ bytes: Data, format: PhotoFormat) throws -> Data {
        let served = try ServedOriginal.make(from: bytes, format: format, orientation: 1, width: 1, height: 1)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-picture-\(UUID().uuidString)").path
        try served.write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let header = try PhotoProcessor(limits: limits).inspect(fileAt: file)
        return try ServedOriginal.make(from: bytes, format: format, orientation: header.orientation, width: header.width, height: header.height)
    }

    static func looksLikeSVG(_ bytes: Data) -> Bool {
        let start = String(decoding: bytes.prefix(1024), as: UTF8.self).lowercased()
        return start.contains("<svg") || start.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("<")
    }

    /// A file name of lowercase letters, digits and hyphens, without its extension: never a
    /// path, never hidden.
    static func safeName(_ given: String) -> String {
        let stem = (given as NSString).lastPathComponent.split(separator: ".").first.map(String.init) ?? ""
        var name = ""
        for character in stem.lowercased() {
            if character.isASCII, character.isLetter || character.isNumber { name.append(character) } else if !name.hasSuffix("-") { name.append("-") }
        }
        name = String(name.trimmingCharacters(in: CharacterSet(charactersIn: "-")).prefix(40))
        return name.isEmpty ? "picture" : name
    }
}
