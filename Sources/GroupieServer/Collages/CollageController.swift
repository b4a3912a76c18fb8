import Foundation
import GroupieContent
import GroupieCore
import GroupieImaging
import GroupieStorage
import HTTPTypes
import Hummingbird
import Logging

/// A completed mission's collage, and the whole album as one ZIP file.
struct CollageController {
    let database: GroupieDatabase
    let catalog: VenueCatalog
    let authenticator: Authenticator
    let signer: ImageURLSigner
    let collages: CollageService
    let blobs: BlobStore
    let processor: PhotoProcessor
    let streamTokens: StreamTokens
    let clock: @Sendable () -> Date

    func addRoutes(to router: some RouterMethods<GroupieRequestContext>) {
        router.get("groups/{groupId}/missions/{missionId}/collage.jpg") { request, context in
            try await collage(request, context: context, format: .jpeg)
        }
        router.get("groups/{groupId}/missions/{missionId}/collage.png") { request, context in
            try await collage(request, context: context, format: .png)
        }
        router.get("groups/{groupId}/album.zip", use: albumZip)
    }

    // MARK: Collage

    func collage(_ request: Request, context: GroupieRequestContext, format: CollageFileFormat) async throws -> Response {
        let groupId = try context.parameters.require("groupId")
        let missionId = try context.parameters.require("missionId")
        let signed = signer.isValidCollage(
            groupId: groupId, missionId: missionId, format: format.rawValue,
            expires: request.uri.queryParameters["expires"].map(String.init),
            signature: request.uri.queryParameters["sig"].map(String.init), now: clock()
        )
        if !signed {
            let player = try await authenticator.player(request)
            guard try await database.groupSeen(by: player.id, groupId: groupId) != nil else { throw GroupController.groupNotFound }
        }
        let longEdge = try request.integerParameter(
            "size", in: CollageService.sizes, fallback: CollageService.defaultLongEdge, code: "invalid-size", unit: " of pixels"
        )
        let file: CollageService.CollageFile
        do {
            file = try await collages.file(groupId: groupId, missionId: missionId, longEdge: longEdge, format: format)
        } catch CollageService.Unavailable.unknownMission {
            throw Problem.notFound("mission-not-found", "The group's venue has no mission '\(String(missionId.prefix(64)))'.")
        } catch CollageService.Unavailable.incomplete(let missing) {
            throw Problem(
                .conflict, code: "mission-incomplete",
                detail: "The collage is made when the mission is complete; \(missing) task\(missing == 1 ? "" : "s") still need\(missing == 1 ? "s" : "") a photo."
            )
        } catch CollageService.Unavailable.failedRecently(let seconds) {
            throw Problem(
                .serviceUnavailable, code: "collage-unavailable",
                detail: "The collage could not be made a short while ago; it is tried again in \(seconds) seconds.", headers: [.retryAfter: "\(seconds)"]
            )
        } catch {
            throw Self.unavailable(error, groupId: groupId, missionId: missionId, logger: context.logger)
        }
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
            bytes = try await BlockingIO.run { try Data(contentsOf: URL(fileURLWithPath: path)) }
        } catch {
            // A newer picture replaced this one since it was made: the next request gets that.
            throw Self.unavailable(error, groupId: groupId, missionId: missionId, logger: context.logger)
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func unavailable(_ error: any Error, groupId: String, missionId: String, logger: Logger) -> Problem {
        logger.error("collage not made: \(error)", metadata: ["group": "\(groupId)", "mission": "\(missionId)"])
        return Problem(.serviceUnavailable, code: "collage-unavailable", detail: "The collage cannot be made just now; try again in a moment.", headers: [.retryAfter: "5"])
    }

    // MARK: Album download

    /// Every photo (originals as served, without location data) and every collage, in folders
    /// by mission, streamed entry by entry: memory holds one photo at a time.
    func albumZip(_ request: Request, context: GroupieRequestContext) async throws -> Response {
        let groupId = try context.parameters.require("groupId")
        let playerId = try await streamTokens.player(request, groupId: groupId)
        guard let (group, _) = try await database.groupSeen(by: playerId, groupId: groupId) else { throw GroupController.groupNotFound }
        let player = try await database.player(id: playerId)
        let venue = catalog.venue(id: group.venueId)?.venue
        let language = venue.map {
            LanguageNegotiation.choose(explicit: player?.language, acceptLanguage: request.headers[.acceptLanguage], offered: $0.languages)
        } ?? "en"
        var photos: [Photo] = []
        var before: String?
        repeat {
            let page = try await database.photos(groupId: groupId, missionId: nil, before: before, limit: 200)
            photos += page
            before = page.count == 200 ? page.last?.id : nil
        } while before != nil
        let plan = AlbumPlan(venue: venue, language: language, photos: photos.reversed())
        let current = try await collages.current(groupId: groupId)
        let (collages, blobs, processor, logger) = (self.collages, self.blobs, self.processor, context.logger)
        let timeZone = venue.flatMap { TimeZone(identifier: $0.timeZone) } ?? TimeZone(identifier: "UTC") ?? .current
        let archiveName = ZipStream.safeName(group.name.map { "Groupie - \($0)" } ?? "Groupie album")
        logger.info("album download", metadata: ["group": "\(groupId)", "photos": "\(photos.count)", "collages": "\(current.count)"])
        let body = ResponseBody { writer in
            var zip = ZipStream()
            for folder in plan.folders {
                for photo in folder.photos {
                    let entry: ByteBuffer
                    do {
                        let data = try await BlockingIO.run { try PhotoController.servedOriginal(photo, blobs: blobs, processor: processor) }
                        let name = zip.uniqueName(folder.name + "/" + ZipStream.safeName(plan.fileStem(photo)) + "." + PhotoController.servedExtension(photo))
                        entry = try zip.entry(name: name, data: data, modified: photo.createdAt, timeZone: timeZone)
                    } catch {
                        logger.error("album photo left out: \(error)", metadata: ["photo": "\(photo.id)"])
                        continue
                    }
                    try await writer.write(entry)
                }
                if let missionId = folder.missionId, let record = current.first(where: { $0.missionId == missionId }) {
                    do {
                        let file = try await collages.file(groupId: groupId, missionId: missionId)
                        let data = try await BlockingIO.run { try Data(contentsOf: URL(fileURLWithPath: file.path)) }
                        let name = zip.uniqueName(folder.name + "/" + ZipStream.safeName(folder.title + " - collage") + ".jpg")
                        try await writer.write(try zip.entry(name: name, data: data, modified: record.createdAt, timeZone: timeZone))
                    } catch {
                        logger.error("album collage left out: \(error)", metadata: ["mission": "\(missionId)"])
                    }
                }
            }
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

/// Where each photo goes in the album download: one folder per mission in the venue's
/// order, then the photos of no task; files named `task - photographer`.
struct AlbumPlan {
    struct Folder {
        var missionId: String?
        var name: String
        var title: String
        var photos: [Photo]
    }

    var folders: [Folder] = []
    private var prompts: [GroupProgress.TaskKey: String] = [:]

    init(venue: Venue?, language: String, photos: [Photo]) {
        let fallback = venue?.defaultLanguage ?? language
        var byMission: [String: [Photo]] = [:]
        var loose: [Photo] = []
        for photo in photos {
            if let missionId = photo.missionId { byMission[missionId, default: []].append(photo) } else { loose.append(photo) }
        }
        for (index, mission) in (venue?.missions ?? []).enumerated() {
            for task in mission.tasks {
                prompts[.init(missionId: mission.id, taskId: task.id)] = task.prompt.resolved(language: language, fallback: fallback)
            }
            guard let missionPhotos = byMission.removeValue(forKey: mission.id) else { continue }
            let title = mission.title.resolved(language: language, fallback: fallback)
            // Numbered in the venue's order, so the folders sort as the visit went.
            folders.append(Folder(missionId: mission.id, name: String(format: "%02d ", index + 1) + ZipStream.safeName(title), title: title, photos: missionPhotos))
        }
        // Missions the venue no longer has keep their photos, under their ids.
        for missionId in byMission.keys.sorted() {
            folders.append(Folder(missionId: nil, name: ZipStream.safeName(missionId), title: missionId, photos: byMission[missionId] ?? []))
        }
        if !loose.isEmpty {
            folders.append(Folder(missionId: nil, name: "Other photos", title: "Other photos", photos: loose))
        }
    }

    func fileStem(_ photo: Photo) -> String {
        let task = photo.task.flatMap { prompts[$0] } ?? photo.taskId ?? "photo"
        return "\(task) - \(photo.photographerName)"
    }
}

extension HTTPField.Name {
    static let contentDisposition = Self("Content-Disposition")!
}
