import Foundation
import GroupieContent
import GroupieCore
import GroupieImaging
import GroupieStorage
import HTTPTypes
import Hummingbird
import Logging

/// A completed mission's collage.
struct CollageController {
    let database: any GroupieStore
    let signer: ImageURLSigner
    let collages: CollageService
    let fileIO: FileIO
    let clock: @Sendable () -> Date

    func addRoutes(to router: some RouterMethods<GroupieRequestContext>) {
        // A signed URL or the bearer token.
        let routes = router.identified(database)
        routes.get("groups/{groupId}/missions/{missionId}/collage.jpg") { request, context in
            try await collage(request, context: context, format: .jpeg)
        }
        routes.get("groups/{groupId}/missions/{missionId}/collage.png") { request, context in
            try await collage(request, context: context, format: .png)
        }
    }

    // MARK: Collage

    /// A signed URL of a picture that the group's photos have since replaced.
    static let changed = Problem.notFound("collage-changed", "This collage has changed since the link was made; the group's page has the new one.")

    func collage(_ request: Request, context: GroupieRequestContext, format: CollageFileFormat) async throws -> Response {
        let groupId = try context.parameters.require("groupId")
        let missionId = try context.parameters.require("missionId")
        let signedVersion = signer.signedCollageVersion(
            groupId: groupId, missionId: missionId, format: format.rawValue,
            version: request.uri.queryParameters["v"].map(String.init),
            expires: request.uri.queryParameters["expires"].map(String.init),
            signature: request.uri.queryParameters["sig"].map(String.init), now: clock()
        )
        var signedRecord: CollageRecord?
        if let signedVersion {
            // The URL shows the picture it was made for, or nothing: never a newer one.
            signedRecord = try await database.collages(groupId: groupId).first { $0.missionId == missionId }
            guard signedRecord?.key == signedVersion else { throw Self.changed }
        } else {
            let player = try context.player(of: request)
            guard try await database.membership(playerId: player.id, groupId: groupId) != nil else { throw Problem.groupNotFound }
        }
        let longEdge = CollageService.drawnSize(for: try request.integerParameter(
            "size", in: CollageService.sizes, fallback: CollageService.defaultLongEdge, code: "invalid-size", unit: " of pixels"
        ))
        let file: CollageService.CollageFile
        do {
            file = try await collages.file(groupId: groupId, missionId: missionId, longEdge: longEdge, format: format, language: Self.language(request))
        } catch CollageService.Unavailable.unknownMission {
            throw Problem.notFound("mission-not-found", "The group's venue has no mission '\(String(missionId.prefix(64)))'.")
        } catch CollageService.Unavailable.incomplete(let missing) {
            throw Problem(
                .conflict, code: "mission-incomplete",
                detail: "The collage is made when the mission is complete; \(EnglishCount.of(missing, "task")) still to do."
            )
        } catch CollageService.Unavailable.noPhotoTasks {
            throw Problem.notFound("no-collage", "Mission '\(missionId)' is all questions and codes: it makes no collage.")
        } catch CollageService.Unavailable.failedRecently(let seconds) {
            throw Problem(
                .serviceUnavailable, code: "collage-unavailable",
                detail: "The collage could not be made a short while ago; it is tried again in \(seconds) seconds.", headers: [.retryAfter: "\(seconds)"]
            )
        } catch {
            throw Self.unavailable(error, groupId: groupId, missionId: missionId, logger: context.logger)
        }
        // The same photos, in whichever language the phone asked for.
        if let signedRecord, file.photoIds != signedRecord.photoIds { throw Self.changed }
        var headers: HTTPFields = [
            .contentType: format.mediaType,
            // The same URL shows a new picture when the photos change: browsers check first.
            .cacheControl: "private, no-cache",
            .eTag: "\"\(file.key)-\(longEdge)\"",
        ]
        let disposition = request.uri.queryParameters["download"] != nil ? "attachment" : "inline"
        headers[.contentDisposition] = "\(disposition); filename=\"\(missionId).\(format.rawValue)\""
        if request.headers[.ifNoneMatch] == headers[.eTag] {
            return Response(status: .notModified, headers: headers)
        }
        let bytes: Data
        do {
            let path = file.path
            bytes = try await fileIO.run { try Data(contentsOf: URL(fileURLWithPath: path)) }
        } catch {
            // A newer picture replaced this one since it was made: the next request gets that.
            throw Self.unavailable(error, groupId: groupId, missionId: missionId, logger: context.logger)
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// `?lang=`: the phone's language for the collage's titles (each language's picture is
    /// its own file and ETag). As for the venue's texts, a language the venue lacks falls back
    /// (`LanguageNegotiation`), it is not an error.
    static func language(_ request: Request) -> String? {
        request.uri.queryParameters["lang"].map(String.init).flatMap { $0.isEmpty || $0.count > 35 ? nil : $0 }
    }

    static func unavailable(_ error: any Error, groupId: String, missionId: String, logger: Logger) -> Problem {
        logger.error("collage not made: \(error)", metadata: ["group": "\(groupId)", "mission": "\(missionId)"])
        return Problem(.serviceUnavailable, code: "collage-unavailable", detail: "The collage cannot be made just now; try again in a moment.", headers: [.retryAfter: "5"])
    }
}

extension HTTPField.Name {
    static let contentDisposition = Self("Content-Disposition")!
}
