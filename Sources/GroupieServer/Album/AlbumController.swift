import Foundation
import GroupieImaging
import GroupieContent
import GroupieCore
import GroupieStorage
import HTTPTypes
import Hummingbird
import Logging

/// `GET /groups/{groupId}/album.zip`: the whole album as one ZIP file.
struct AlbumController {
    let database: any GroupieStore
    let catalog: VenueCatalog
    let collages: CollageService
    let files: PhotoFiles
    let downloads: StreamedDownloads
    let fileIO: FileIO
    let streamTokens: StreamTokens

    func addRoutes(to router: some RouterMethods<GroupieRequestContext>) {
        // A stream token or the bearer token.
        router.identified(database).get("groups/{groupId}/album.zip", use: download)
    }

    /// Every photo (originals as served, without location data) and every collage, in folders
    /// by mission, streamed entry by entry: memory holds one photo at a time.
    func download(_ request: Request, context: GroupieRequestContext) async throws -> Response {
        let groupId = try context.parameters.require("groupId")
        let playerId = try streamTokens.player(request, context: context, groupId: groupId)
        guard let group = try await database.membership(playerId: playerId, groupId: groupId)?.group else { throw Problem.groupNotFound }
        // A bearer token already found the player; a stream token names only the id.
        let player = if let identity = context.identity, identity.id == playerId { identity } else { try await database.player(id: playerId) }
        let venue = catalog.venue(id: group.venueId)?.venue
        // `?lang=`: the phone's one language, as for its venue's texts and collages.
        let asked = CollageController.language(request)
        let language = venue.map {
            LanguageNegotiation.choose(explicit: asked ?? player?.language, acceptLanguage: request.headers[.acceptLanguage], offered: $0.languages)
        } ?? "en"
        let photos = try await AlbumZip.photos(of: groupId, in: database)
        let plan = AlbumPlan(venue: venue, language: language, photos: photos.reversed())
        let current = try await collages.current(groupId: groupId)
        let timeZone = venue.flatMap { TimeZone(identifier: $0.timeZone) } ?? TimeZone(identifier: "UTC") ?? .current
        let album = AlbumZip(collages: collages, files: files, fileIO: fileIO, logger: context.logger, timeZone: timeZone)
        let archiveName = ZipStream.safeName(group.name.map { "Groupie - \($0)" } ?? "Groupie album")
        context.logger.info("album download", metadata: ["group": "\(groupId)", "photos": "\(photos.count)", "collages": "\(current.count)"])
        let place = try downloads.take()
        // Each file goes a chunk at a time as the client reads: its checksum first (the entry's
        // header carries it), then its bytes from the same open file.
        let body = ResponseBody { writer in
            defer { withExtendedLifetime(place) {} }
            var zip = ZipStream()
            try await album.write(.init(groupId: groupId, prefix: "", plan: plan, collages: current), into: &zip, writer: &writer)
            try await writer.write(zip.finish())
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/zip",
                .contentDisposition: "attachment; filename=\"groupie-album.zip\"; filename*=UTF-8''\(Self.percentEncoded(archiveName)).zip",
                .cacheControl: "no-store",
            ],
            body: body
        )
    }

    static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? "album"
    }
}
