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

    let photos: PhotoService
    let signer: ImageURLSigner
    let downloads: StreamedDownloads
    let partials: PartialUploads
    let clientAddress: ClientAddress

    private var database: any GroupieStore { photos.database }
    private var clock: @Sendable () -> Date { photos.clock }

    func addRoutes(to router: some RouterMethods<GroupieRequestContext>) {
        router.members(database).post("photos", use: upload).get("photos", use: album)
            .put("missions/{missionId}/tasks/{taskId}/choice", use: choose)
            .put("missions/{missionId}/tasks/{taskId}/claim", use: claim).delete("missions/{missionId}/tasks/{taskId}/claim", use: release)
            .put("uploads/{uploadKey}", use: putPart).get("uploads/{uploadKey}", use: uploadStatus)
        // A signed URL or the bearer token.
        router.identified(database).get("photos/{photoId}/{variant}", use: image)
        router.players(database).delete("photos/{photoId}", use: delete).post("photos/{photoId}/hide", use: hide)
    }

    // MARK: Upload

    func upload(_ request: Request, context: MemberContext) async throws -> EditedResponse<PhotoEnvelope> {
        let task = try Self.task(request)
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > photos.ingest.maxUploadBytes {
            throw Problem.tooLarge(limit: photos.ingest.maxUploadBytes)
        }
        let idempotencyKey = try Self.idempotencyKey(request)
        let upload = PhotoService.Upload(
            task: task, choose: try Self.choose(request, task: task), idempotencyKey: idempotencyKey,
            source: .body(request.body, contentType: request.headers[.contentType])
        )
        let uploaded = try await photos.upload(upload, by: context.player, to: context.group, logger: context.logger)
        return try await created(uploaded.photo, held: uploaded.held)
    }

    /// The answer to an upload: the photo, and where it went, read after its commit (the
    /// photographer is told when a teammate's photo, uploaded at the same time, stays the task's).
    func created(_ photo: Photo, held: Bool, status: HTTPResponse.Status = .created) async throws -> EditedResponse<PhotoEnvelope> {
        let chosen = held ? nil : try await photos.taskPhoto(of: photo)
        return EditedResponse(
            status: status, response: PhotoEnvelope(photo: PhotoDocument(photo, signer: signer, now: clock(), held: held), taskPhoto: chosen)
        )
    }

    /// The task the upload names, not yet checked against the venue; nil for a free photo.
    static func task(_ request: Request) throws -> GroupProgress.TaskKey? {
        let missionId = try request.identifierParameter("mission")
        let taskId = try request.identifierParameter("task")
        guard missionId != nil || taskId != nil else { return nil }
        guard let missionId, let taskId else {
            throw Problem(.unprocessableContent, code: "invalid-task", detail: "Give both 'mission' and 'task', or neither for a free photo.")
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

    // MARK: Album

    func album(_ request: Request, context: MemberContext) async throws -> PhotoPage {
        let limit = try request.integerParameter("limit", in: Self.pageSizes, fallback: 30, code: "invalid-limit")
        let page = try await photos.album(
            of: context.group.id, seenBy: context.player, missionId: try request.identifierParameter("mission"),
            before: request.uri.queryParameters["before"].map(String.init), limit: limit + 1
        )
        let now = clock()
        return PhotoPage(
            photos: page.photos.prefix(limit).map { PhotoDocument($0, signer: signer, now: now) },
            next: page.photos.count > limit ? page.photos[limit - 1].id : nil,
            collages: page.collages.map { CollageDocument($0, signer: signer, now: now) },
            waitingForReview: page.held.map { PhotoDocument($0, signer: signer, now: now, held: true) }
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
        let viewer = signed ? context.identity : try context.player(of: request)
        guard let photo = try await photos.photo(photoId, signed: signed, seenBy: viewer) else { throw Problem.notFound("photo-not-found", "There is no such photo among your group's.") }
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
            opened = try await photos.file(file, of: photo)
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

    func delete(_ request: Request, context: PlayerContext) async throws -> HTTPResponse.Status {
        try await photos.delete(try context.parameters.require("photoId"), by: context.player, logger: context.logger)
        return .noContent
    }

    func hide(_ request: Request, context: PlayerContext) async throws -> HTTPResponse.Status {
        try await photos.hide(try context.parameters.require("photoId"), by: context.player, logger: context.logger)
        return .noContent
    }

    func choose(_ request: Request, context: MemberContext) async throws -> HTTPResponse.Status {
        // Outsiders learn nothing, not even whether their body was well formed: the context came first.
        let body = try await request.decode(as: ChoiceRequest.self, context: context)
        let task = try Self.pathTask(context)
        try await photos.choose(body.photoId, for: task, by: context.player, in: context.group)
        return .noContent
    }
}

extension PhotoController {
    // MARK: Claims

    /// "I'm on it": the member claims the task for the group to see.
    func claim(_ request: Request, context: MemberContext) async throws -> HTTPResponse.Status {
        try await photos.claim(try Self.pathTask(context), by: context.player, in: context.group)
        return .noContent
    }

    /// The member gives the task back.
    func release(_ request: Request, context: MemberContext) async throws -> HTTPResponse.Status {
        try await photos.release(try Self.pathTask(context), by: context.player, in: context.group)
        return .noContent
    }

    /// The task the path names; ids no mission file could hold are refused before any work.
    static func pathTask(_ context: MemberContext) throws -> GroupProgress.TaskKey {
        let missionId = try context.parameters.require("missionId"), taskId = try context.parameters.require("taskId")
        guard Identifier.isValid(missionId), Identifier.isValid(taskId) else {
            throw Problem.notFound("task-not-found", "The venue has no such mission or task.")
        }
        return GroupProgress.TaskKey(missionId: missionId, taskId: taskId)
    }
}

extension HTTPField.Name {
    static let idempotencyKey = Self("Idempotency-Key")!
}
