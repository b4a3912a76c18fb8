import Foundation
import GroupieContent
import GroupieCore
import GroupieImaging
import GroupieStorage
import HTTPTypes
import Hummingbird

/// `GET /groups/{groupId}/recap.pdf` and `recap.png`: the group's recap as one page to keep,
/// drawn by the server as the posters are. A member asks with the bearer token, or a download
/// link with a stream token (`?token=`), as for the album.
struct RecapController {
    let database: any GroupieStore
    let catalog: VenueCatalog
    let collages: CollageService
    let fileIO: FileIO
    let streamTokens: StreamTokens
    let assetsDirectory: String
    let cache: RecapCache

    /// PNG recaps are drawn at this resolution: sharp on a phone, and in print.
    static let pngDPI = 150
    /// The collages are embedded at this long edge.
    static let collageEdge = 1024

    func addRoutes(to router: some RouterMethods<GroupieRequestContext>) {
        let routes = router.identified(database)
        routes.get("groups/{groupId}/recap.pdf") { request, context in
            try await recap(request, context: context, format: .pdf, mediaType: "application/pdf", fileExtension: "pdf")
        }
        routes.get("groups/{groupId}/recap.png") { request, context in
            try await recap(request, context: context, format: .png(dpi: Self.pngDPI), mediaType: "image/png", fileExtension: "png")
        }
    }

    func recap(_ request: Request, context: GroupieRequestContext, format: Poster.Format, mediaType: String, fileExtension: String) async throws -> Response {
        let groupId = try context.parameters.require("groupId")
        let playerId = try streamTokens.player(request, context: context, groupId: groupId)
        guard try await database.membership(playerId: playerId, groupId: groupId) != nil,
            let subject = try await database.collageSubject(groupId: groupId)
        else { throw Problem.groupNotFound }
        guard let entry = catalog.venue(id: subject.group.venueId) else {
            throw Problem.notFound("venue-not-found", "The group's venue is no longer offered; its album can still be downloaded.")
        }
        let venue = entry.venue
        let player = if let identity = context.identity, identity.id == playerId { identity } else { try await database.player(id: playerId) }
        let language = LanguageNegotiation.choose(
            explicit: request.uri.queryParameters["lang"].map(String.init) ?? player?.language,
            acceptLanguage: request.headers[.acceptLanguage], offered: venue.languages
        )
        let recap = Recap(venue: venue, taskPhotos: subject.taskPhotos, language: language)
        var images: [String] = []
        for chapter in recap.chapters {
            // A chapter of questions alone has no collage: its page shows the facts only.
            guard !chapter.photoIds.isEmpty else {
                images.append("")
                continue
            }
            do {
                // Each collage in the reader's language, as the reward screen shows it.
                images.append(
                    try await collages.file(
                        groupId: groupId, missionId: chapter.missionId, longEdge: Self.collageEdge, format: .png, language: language
                    ).path
                )
            } catch {
                throw CollageController.unavailable(error, groupId: groupId, missionId: chapter.missionId, logger: context.logger)
            }
        }
        let page = RecapWords.page(
            recap, images: images, group: subject.group, venue: venue, language: language,
            logoPath: venue.theme.logo.map { assetsDirectory + "/" + $0 }
        )
        let bytes = try await cache.recap(page, format: format, groupId: groupId)
        context.logger.info("recap made", metadata: ["group": "\(groupId)", "chapters": "\(recap.chapters.count)", "format": "\(fileExtension)"])
        let disposition = request.uri.queryParameters["download"] != nil ? "attachment" : "inline"
        let name = ZipStream.safeName(subject.group.name.map { "Groupie - \($0)" } ?? "Groupie recap")
        return Response(
            status: .ok,
            headers: [
                .contentType: mediaType,
                .contentDisposition: "\(disposition); filename=\"groupie-recap.\(fileExtension)\"; filename*=UTF-8''\(AlbumController.percentEncoded(name)).\(fileExtension)",
                .cacheControl: "private, no-store",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }
}
