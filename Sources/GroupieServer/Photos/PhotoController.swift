import Foundation
import GroupieContent
import GroupieCore
import GroupieImaging
import GroupieStorage
import HTTPTypes
import Hummingbird

/// Photos: upload for a task (or free), the album, image bytes, delete, and the chosen photo.
struct PhotoController {
    static let pageSizes = 1...100

    let database: any GroupieStore
    let catalog: VenueCatalog
    let ingest: PhotoIngest
    let files: PhotoFiles
    let downloads: StreamedDownloads
    let signer: ImageURLSigner
    let events: GroupEvents
    let collages: CollageService
    let background: BackgroundWork
    let clock: @Sendable () -> Date

    func addRoutes(to router: some RouterMethods<GroupieRequestContext>) {
        router.members(database).post("photos", use: upload).get("photos", use: album)
            .put("missions/{missionId}/tasks/{taskId}/choice", use: choose)
        // A signed URL or the bearer token.
        router.identified(database).get("photos/{photoId}/{variant}", use: image)
        router.players(database).delete("photos/{photoId}", use: delete)
    }

    // MARK: Upload

    func upload(_ request: Request, context: GroupieRequestContext) async throws -> EditedResponse<PhotoEnvelope> {
        let player = try context.player, group = try context.group
        if let closed = group.closed { throw Problem.groupClosed(closed) }
        let task = try await taskOfUpload(request, group: group)
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > ingest.maxUploadBytes {
            throw Problem.tooLarge(limit: ingest.maxUploadBytes)
        }
        let idempotencyKey = try Self.idempotencyKey(request)
        let choose = try Self.choose(request, task: task)
        // A retry of an upload that already succeeded is answered without processing it again.
        if let idempotencyKey, let first = try await database.uploadedPhoto(playerId: player.id, groupId: group.id, key: idempotencyKey, now: clock()) {
            guard first.photo.missionId == task?.missionId, first.photo.taskId == task?.taskId else { throw PhotoError.keyReused }
            return EditedResponse(
                status: .created, response: PhotoEnvelope(photo: PhotoDocument(first.photo, signer: signer, now: clock(), held: first.held))
            )
        }

        let received: PhotoIngest.Stored
        do {
            received = try await ingest.store(request.body, contentType: request.headers[.contentType])
        } catch {
            throw Self.problem(for: error)
        }
        let (blob, header) = (received.blob, received.header)
        let new = NewPhoto(
            groupId: group.id, photographerId: player.id, missionId: task?.missionId, taskId: task?.taskId,
            blob: blob, format: header.format.rawValue, width: header.orientedWidth, height: header.orientedHeight,
            idempotencyKey: idempotencyKey, choose: choose
        )
        let photo: Photo, created: Bool, held: Bool, stored: [GroupEvent]
        let venue = catalog.venue(id: group.venueId)?.venue
        do {
            (photo, created, held, stored) = try await database.addPhoto(new, venue: venue, now: clock())
        } catch let error where error is MembershipError || error is PhotoError || error is PhotoRules.Refusal || error is StorageFull {
            // The member left, staff closed the group or the mission locked again while the photo
            // was processed, a concurrent upload used the key for another task, or the database's
            // disk had no room for the row; the files go unless another photo has them.
            try await files.removeUnused(blob, database: database)
            throw error
        }
        if !created, photo.blob != blob {
            // A concurrent retry with the same key but other bytes: its files belong to no photo.
            try await files.removeUnused(blob, database: database)
        }
        if created {
            context.logger.info(
                held ? "photo held for review" : "photo added",
                metadata: ["photo": "\(photo.id)", "group": "\(group.id)", "pixels": "\(header.width)x\(header.height)"]
            )
            events.hub.publish(stored)
            // After the answer: where the subject is, for collages to crop around (a photo
            // without it is looked at when its collage is drawn), then the collages it changes.
            background.enqueue { [ingest, database, collages, logger = context.logger] in
                do {
                    try await database.setFocus(photoId: photo.id, try await ingest.focus(ofBlob: blob))
                } catch {
                    logger.warning("subject of the photo not found: \(error)", metadata: ["photo": "\(photo.id)"])
                }
                if photo.task != nil, !held { collages.refresh(groupId: photo.groupId) }
            }
        }
        return EditedResponse(status: .created, response: PhotoEnvelope(photo: PhotoDocument(photo, signer: signer, now: clock(), held: held)))
    }

    /// The task the upload is for, checked against the venue and the group's progress;
    /// nil for a free photo, which needs neither.
    private func taskOfUpload(_ request: Request, group: Group) async throws -> GroupProgress.TaskKey? {
        let missionId = try request.identifierParameter("mission")
        let taskId = try request.identifierParameter("task")
        guard missionId != nil || taskId != nil else { return nil }
        guard let missionId, let taskId else {
            throw Problem(.unprocessableContent, code: "invalid-task", detail: "Give both 'mission' and 'task', or neither for a free photo.")
        }
        guard let venue = catalog.venue(id: group.venueId)?.venue, let mission = venue.mission(id: missionId) else {
            throw Problem(.unprocessableContent, code: "unknown-mission", detail: "The venue has no mission '\(missionId.prefix(64))'.")
        }
        guard mission.task(id: taskId) != nil else {
            throw Problem(.unprocessableContent, code: "unknown-task", detail: "Mission '\(missionId)' has no task '\(taskId.prefix(64))'.")
        }
        let progress = GroupProgress(venue: venue, doneTasks: try await database.taskPhotos(groupId: group.id).done)
        guard progress.mission(missionId)?.isUnlocked == true else {
            throw Problem(.conflict, code: "mission-locked", detail: "Mission '\(missionId)' unlocks when \(mission.after.joined(separator: ", ")) are complete.")
        }
        return GroupProgress.TaskKey(missionId: missionId, taskId: taskId)
    }

    /// The `Idempotency-Key` header: 1 to 128 printable ASCII characters, not starting or
    /// ending with a space, or 400.
    static func idempotencyKey(_ request: Request) throws -> String? {
        guard let key = request.headers[.idempotencyKey] else { return nil }
        let bytes = Array(key.utf8)
        guard (1...128).contains(bytes.count), bytes.allSatisfy({ (0x20...0x7E).contains($0) }), bytes.first != 0x20, bytes.last != 0x20 else {
            throw Problem.badRequest("invalid-idempotency-key", "An Idempotency-Key is 1 to 128 printable ASCII characters.")
        }
        return key
    }

    /// `choose=true`: the photographer makes the new photo the task's chosen one, in place of
    /// the one before; without it the photo only joins the album.
    static func choose(_ request: Request, task: GroupProgress.TaskKey?) throws -> Bool {
        guard let value = request.uri.queryParameters["choose"] else { return false }
        switch value {
        case "false": return false
        case "true" where task != nil: return true
        case "true": throw Problem.badRequest("invalid-choose", "Only a photo for a task can be chosen for it; name the mission and the task.")
        default: throw Problem.badRequest("invalid-choose", "choose is true or false.")
        }
    }

    static func problem(for error: any Error) -> any Error {
        if error is ServedOriginal.Malformed {
            return Problem(.unprocessableContent, code: "unreadable-image", detail: "The photo's file is not laid out as its format requires; it may be damaged.")
        }
        guard let failure = error as? PhotoProcessor.Failure else { return error }
        switch failure {
        case .unsupportedFormat:
            return Problem(.unsupportedMediaType, code: "unsupported-image", detail: "Only JPEG, PNG, WebP and HEIC/HEIF photos are accepted.")
        case .tooLarge(let width, let height):
            return Problem(.unprocessableContent, code: "image-too-large", detail: "The photo is \(width) × \(height) pixels; at most 100 megapixels are accepted.")
        case .tooManyDecodedBytes(let bytes):
            return Problem(.unprocessableContent, code: "image-too-large", detail: "The photo needs \(bytes / 1_048_576) MiB once decoded (its pixels, colour channels and bit depth); at most \(PhotoProcessor.Limits().maxDecodedBytes / 1_048_576) MiB are accepted.")
        case .tooSmall(let width, let height):
            return Problem(.unprocessableContent, code: "image-too-small", detail: "The photo is \(width) × \(height) pixels; each side must be at least 64.")
        case .unreadable, .processing:
            return Problem(.unprocessableContent, code: "unreadable-image", detail: "The photo cannot be read; it may be truncated or damaged.")
        }
    }

    // MARK: Album

    func album(_ request: Request, context: GroupieRequestContext) async throws -> PhotoPage {
        let groupId = try context.group.id, playerId = try context.player.id
        let limit = try request.integerParameter("limit", in: Self.pageSizes, fallback: 30, code: "invalid-limit")
        let photos = try await database.photos(
            groupId: groupId, missionId: try request.identifierParameter("mission"),
            before: request.uri.queryParameters["before"].map(String.init), limit: limit + 1
        )
        let now = clock()
        return PhotoPage(
            photos: photos.prefix(limit).map { PhotoDocument($0, signer: signer, now: now) },
            next: photos.count > limit ? photos[limit - 1].id : nil,
            collages: try await collages.current(groupId: groupId).map { CollageDocument($0, signer: signer, now: now) },
            waitingForReview: try await database.heldPhotos(groupId: groupId, photographerId: playerId).map {
                PhotoDocument($0, signer: signer, now: now, held: true)
            }
        )
    }

    // MARK: Image bytes

    func image(_ request: Request, context: GroupieRequestContext) async throws -> Response {
        let photoId = try context.parameters.require("photoId")
        let variant = try context.parameters.require("variant")
        guard ["thumb", "display", "original"].contains(variant) else {
            throw Problem.notFound("not-found", "Photos come as thumb, display or original.")
        }
        let signed = signer.isValid(
            photoId: photoId, variant: variant,
            expires: request.uri.queryParameters["expires"].map(String.init),
            signature: request.uri.queryParameters["sig"].map(String.init), now: clock()
        )
        var photo: Photo?
        if signed {
            photo = try await database.photo(id: photoId)
        } else {
            photo = try await database.photo(id: photoId, seenBy: try context.player(of: request).id)
        }
        if photo == nil, let held = try await database.heldPhoto(id: photoId) {
            // Waiting for review: its photographer sees it (a signed URL of it went to them only).
            photo = signed || held.photographerId == (try? context.player(of: request).id) ? held : nil
        }
        guard let photo else { throw Problem.notFound("photo-not-found", "There is no such photo among your group's.") }
        var headers: HTTPFields = [
            .cacheControl: "private, max-age=31536000, immutable",
            .eTag: "\"\(photo.blob.prefix(32))-\(variant)\"",
        ]
        if request.headers[.ifNoneMatch] == headers[.eTag] {
            return Response(status: .notModified, headers: headers)
        }
        guard let format = PhotoFormat(rawValue: photo.format), let file = PhotoVariant(urlName: variant, format: format) else {
            throw Problem.notFound("photo-file-missing", "The image of this photo is not available.")
        }
        let opened: StreamedFile
        do {
            opened = try await files.opened(photo, file)
        } catch {
            // The row is there but its file is not, or the original cannot be read safely:
            // nothing is served rather than something with a location in it.
            context.logger.error("photo file unavailable: \(error)", metadata: ["photo": "\(photo.id)", "variant": "\(variant)"])
            throw Problem.notFound("photo-file-missing", "The image of this photo is not available.")
        }
        headers[.contentType] = file.mediaType
        // A thumbnail goes in one piece; a larger file as the client reads it.
        if opened.size <= StreamedFile.chunkSize {
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: try await opened.chunk(at: 0)))
        }
        let place = try downloads.take()
        return Response(status: .ok, headers: headers, body: ResponseBody(contentLength: opened.size) { writer in
            defer { withExtendedLifetime(place) {} }
            try await opened.write(to: &writer)
            try await writer.finish(nil)
        })
    }

    // MARK: Delete and choose

    func delete(_ request: Request, context: GroupieRequestContext) async throws -> HTTPResponse.Status {
        let player = try context.player
        let photoId = try context.parameters.require("photoId")
        let venue = try await database.currentGroup(of: player.id).flatMap { catalog.venue(id: $0.venueId)?.venue }
        let deleted = try await database.deletePhoto(id: photoId, by: player.id, venue: venue, now: clock())
        if deleted.blobUnused { try await files.removeFiles(of: [deleted.photo.blob]) }
        context.logger.info("photo deleted", metadata: ["photo": "\(photoId)", "by": "\(player.id)"])
        events.hub.publish(deleted.events)
        if deleted.photo.task != nil { collages.refresh(groupId: deleted.photo.groupId) }
        return .noContent
    }

    func choose(_ request: Request, context: GroupieRequestContext) async throws -> HTTPResponse.Status {
        // Outsiders learn nothing, not even whether their body was well formed: the guard came first.
        let player = try context.player, group = try context.group
        let body = try await request.decode(as: ChoiceRequest.self, context: context)
        let task = GroupProgress.TaskKey(missionId: try context.parameters.require("missionId"), taskId: try context.parameters.require("taskId"))
        let stored = try await database.choosePhoto(
            groupId: group.id, task: task, photoId: body.photoId, by: player, venue: catalog.venue(id: group.venueId)?.venue, now: clock()
        )
        events.hub.publish(stored)
        collages.refresh(groupId: group.id)
        return .noContent
    }
}

extension HTTPField.Name {
    static let idempotencyKey = Self("Idempotency-Key")!
}
