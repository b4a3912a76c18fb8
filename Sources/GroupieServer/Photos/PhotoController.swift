import Foundation
import GroupieContent
import GroupieCore
import GroupieImaging
import GroupieStorage
import HTTPTypes
import Hummingbird

/// Photos: upload for a task (or free), the album, image bytes, delete, and the chosen photo.
struct PhotoController {
    static let variants = ["thumb": "-thumb.jpg", "display": "-display.jpg"]
    static let pageSizes = 1...100

    let database: GroupieDatabase
    let catalog: VenueCatalog
    let authenticator: Authenticator
    let blobs: BlobStore
    let processor: PhotoProcessor
    let work: ImageWorkQueue
    let signer: ImageURLSigner
    let maxUploadBytes: Int
    let events: GroupEvents
    let collages: CollageService
    let clock: @Sendable () -> Date

    func addRoutes(to router: some RouterMethods<GroupieRequestContext>) {
        router.post("groups/{groupId}/photos", use: upload)
        router.get("groups/{groupId}/photos", use: album)
        router.put("groups/{groupId}/missions/{missionId}/tasks/{taskId}/choice", use: choose)
        router.get("photos/{photoId}/{variant}", use: image)
        router.delete("photos/{photoId}", use: delete)
    }

    // MARK: Upload

    func upload(_ request: Request, context: GroupieRequestContext) async throws -> EditedResponse<PhotoEnvelope> {
        let player = try await authenticator.player(request)
        let groupId = try context.parameters.require("groupId")
        guard let (group, _) = try await database.groupSeen(by: player.id, groupId: groupId) else { throw GroupController.groupNotFound }
        let task = try await taskOfUpload(request, group: group)
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > maxUploadBytes {
            throw Problem.tooLarge(limit: maxUploadBytes)
        }
        let idempotencyKey = try Self.idempotencyKey(request)
        // A retry of an upload that already succeeded is answered without processing it again.
        if let idempotencyKey, let first = try await database.uploadedPhoto(playerId: player.id, groupId: group.id, key: idempotencyKey, now: clock()) {
            guard first.missionId == task?.missionId, first.taskId == task?.taskId else { throw Self.keyReused }
            return EditedResponse(status: .created, response: PhotoEnvelope(photo: PhotoDocument(first, signer: signer, now: clock())))
        }

        let base = blobs.temporaryDirectory + "/" + UUID().uuidString
        let temporaryFiles = [base, base + "-display.jpg", base + "-thumb.jpg", base + "-served"]
        defer { for file in temporaryFiles { try? FileManager.default.removeItem(atPath: file) } }

        let (blob, _) = try await UploadReceiver.receive(request.body, contentType: request.headers[.contentType], to: base, limit: maxUploadBytes)
        let header = try await work.run { [processor, blobs] in
            // The structure is checked before libvips reads anything: a chunk that declares
            // more bytes than the file has would make the decoder allocate them.
            let original = try Data(contentsOf: URL(fileURLWithPath: base))
            guard let format = PhotoFormat.detect(original.prefix(PhotoFormat.signatureLength)) else { throw PhotoProcessor.Failure.unsupportedFormat }
            let unrotated = try ServedOriginal.checkStructure(original, format: format)
            let header = try processor.inspect(fileAt: base)
            if header.format == .jpeg, ServedOriginal.isProgressiveJPEG(original), header.decodedBytes * 2 > processor.limits.maxDecodedBytes {
                // A progressive JPEG is held as two-byte coefficients while it is decoded.
                throw PhotoProcessor.Failure.tooManyDecodedBytes(header.decodedBytes * 2)
            }
            // What will be served is made now: a file that cannot be served is refused here,
            // never stored to answer 404 later.
            try Self.makeServedOriginal(
                of: base, original: original, header: header, to: base + "-served", processor: processor,
                unrotated: header.orientation == 1 ? unrotated : nil
            )
            try processor.makeDerivative(.display, of: base, to: base + "-display.jpg")
            try processor.makeDerivative(.thumb, of: base, to: base + "-thumb.jpg")
            // Files are durable before the row that points at them commits.
            try blobs.store(base + "-display.jpg", blob: blob, variant: "-display.jpg")
            try blobs.store(base + "-thumb.jpg", blob: blob, variant: "-thumb.jpg")
            try blobs.store(base + "-served", blob: blob, variant: Self.servedVariant(header.format))
            try blobs.store(base, blob: blob, variant: "." + header.format.fileExtension)
            return header
        } mapError: { failure in
            Self.problem(for: failure)
        }
        let new = GroupieDatabase.NewPhoto(
            groupId: group.id, photographerId: player.id, missionId: task?.missionId, taskId: task?.taskId,
            blob: blob, format: header.format.rawValue, width: header.orientedWidth, height: header.orientedHeight,
            idempotencyKey: idempotencyKey
        )
        let photo: Photo, created: Bool, stored: [GroupEvent]
        let venue = catalog.venue(id: group.venueId)?.venue
        do {
            (photo, created, stored) = try await database.addPhoto(new, now: clock(), events: GroupEvents.photoEvents("photo-added", venue: venue))
        } catch let error where error as? MembershipError == .groupNotFound || error as? PhotoError == .keyReused {
            // The member left while the photo was processed, or a concurrent upload used the key
            // for another task; the files go unless another photo has them.
            if try await !database.isBlobUsed(blob) { try await BlockingIO.run { [blobs] in blobs.removeFiles(of: blob) } }
            throw error as? PhotoError == .keyReused ? Self.keyReused : GroupController.groupNotFound
        }
        if !created, photo.blob != blob, try await !database.isBlobUsed(blob) {
            // A concurrent retry with the same key but other bytes: its files belong to no photo.
            try await BlockingIO.run { [blobs] in blobs.removeFiles(of: blob) }
        }
        if created {
            context.logger.info("photo added", metadata: ["photo": "\(photo.id)", "group": "\(group.id)", "pixels": "\(header.width)x\(header.height)"])
            events.hub.publish(stored)
            // After the answer: where the subject is, for collages to crop around (a photo
            // without it is looked at when its collage is drawn), then the collages it changes.
            let thumb = blobs.path(blob: blob, variant: "-thumb.jpg")
            Task { [work, processor, database, collages, logger = context.logger] in
                do {
                    let focus = try await work.run { try processor.focus(of: thumb) }
                    try await database.setFocus(photoId: photo.id, focus)
                } catch {
                    logger.warning("subject of the photo not found: \(error)", metadata: ["photo": "\(photo.id)"])
                }
                if photo.task != nil { collages.refresh(groupId: photo.groupId) }
            }
        }
        return EditedResponse(status: .created, response: PhotoEnvelope(photo: PhotoDocument(photo, signer: signer, now: clock())))
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

    static let keyReused = Problem(
        .unprocessableContent, code: "idempotency-key-reused",
        detail: "This Idempotency-Key was used in the last 24 hours for a photo of another task; use a new key for a new photo."
    )

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
        let player = try await authenticator.player(request)
        let groupId = try context.parameters.require("groupId")
        guard try await database.groupSeen(by: player.id, groupId: groupId) != nil else { throw GroupController.groupNotFound }
        let limit = try request.integerParameter("limit", in: Self.pageSizes, fallback: 30, code: "invalid-limit")
        let photos = try await database.photos(
            groupId: groupId, missionId: try request.identifierParameter("mission"),
            before: request.uri.queryParameters["before"].map(String.init), limit: limit + 1
        )
        let now = clock()
        return PhotoPage(
            photos: photos.prefix(limit).map { PhotoDocument($0, signer: signer, now: now) },
            next: photos.count > limit ? photos[limit - 1].id : nil,
            collages: try await collages.current(groupId: groupId).map { CollageDocument($0, signer: signer, now: now) }
        )
    }

    // MARK: Image bytes

    func image(_ request: Request, context: GroupieRequestContext) async throws -> Response {
        let photoId = try context.parameters.require("photoId")
        let variant = try context.parameters.require("variant")
        guard variant == "original" || Self.variants[variant] != nil else {
            throw Problem.notFound("not-found", "Photos come as thumb, display or original.")
        }
        let signed = signer.isValid(
            photoId: photoId, variant: variant,
            expires: request.uri.queryParameters["expires"].map(String.init),
            signature: request.uri.queryParameters["sig"].map(String.init), now: clock()
        )
        let photo: Photo?
        if signed {
            photo = try await database.photo(id: photoId)
        } else {
            photo = try await database.photo(id: photoId, seenBy: try await authenticator.player(request).id)
        }
        guard let photo else { throw Problem.notFound("photo-not-found", "There is no such photo among your group's.") }
        var headers: HTTPFields = [
            .cacheControl: "private, max-age=31536000, immutable",
            .eTag: "\"\(photo.blob.prefix(32))-\(variant)\"",
        ]
        if request.headers[.ifNoneMatch] == headers[.eTag] {
            return Response(status: .notModified, headers: headers)
        }
        let bytes: Data
        do {
            bytes = try await BlockingIO.run { [blobs, processor] in
                if let suffix = Self.variants[variant] {
                    return try Data(contentsOf: URL(fileURLWithPath: blobs.path(blob: photo.blob, variant: suffix)))
                }
                return try Self.servedOriginal(photo, blobs: blobs, processor: processor)
            }
        } catch {
            // The row is there but its file is not, or the original cannot be read safely:
            // nothing is served rather than something with a location in it.
            context.logger.error("photo file unavailable: \(error)", metadata: ["photo": "\(photo.id)", "variant": "\(variant)"])
            throw Problem.notFound("photo-file-missing", "The image of this photo is not available.")
        }
        let format = variant == "original" ? PhotoFormat(rawValue: photo.format) : .jpeg
        headers[.contentType] = format == .heif || format == nil ? "image/jpeg" : format!.mediaType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// The file name suffix of the original as served, beside the blob's other files.
    static func servedVariant(_ format: PhotoFormat) -> String {
        format == .heif ? "-full.jpg" : "-served." + format.fileExtension
    }

    /// Writes the original as it is served to `output`: rebuilt from the allow-list of
    /// `ServedOriginal`, or, for HEIF, a metadata-free JPEG transcode. Blocks.
    /// `unrotated`: the rebuild the structure check already made, when the orientation is 1.
    static func makeServedOriginal(
        of input: String, original: Data? = nil, header: PhotoProcessor.Header, to output: String, processor: PhotoProcessor, unrotated: Data? = nil
    ) throws {
        if header.format == .heif {
            try processor.transcode(input, to: output)
            return
        }
        let served = try unrotated ?? ServedOriginal.make(
            from: try original ?? Data(contentsOf: URL(fileURLWithPath: input)), format: header.format,
            orientation: header.orientation, width: header.width, height: header.height
        )
        guard FileManager.default.createFile(atPath: output, contents: served, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: output])
        }
    }

    /// The original as it is served. Blocks. Photos stored before served originals were kept
    /// get theirs made now, once; throws when the file is gone or cannot be made, so that
    /// nothing else is ever sent.
    static func servedOriginal(_ photo: Photo, blobs: BlobStore, processor: PhotoProcessor) throws -> Data {
        guard let format = PhotoFormat(rawValue: photo.format) else { throw CocoaError(.fileReadCorruptFile) }
        let path = blobs.path(blob: photo.blob, variant: servedVariant(format))
        if let served = FileManager.default.contents(atPath: path) { return served }
        let original = blobs.path(blob: photo.blob, variant: "." + format.fileExtension)
        let temporary = blobs.temporaryDirectory + "/" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        try makeServedOriginal(of: original, header: try processor.inspect(fileAt: original), to: temporary, processor: processor)
        try blobs.store(temporary, blob: photo.blob, variant: servedVariant(format))
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// The file extension of the original as served.
    static func servedExtension(_ photo: Photo) -> String {
        guard let format = PhotoFormat(rawValue: photo.format), format != .heif else { return "jpg" }
        return format.fileExtension
    }

    // MARK: Delete and choose

    func delete(_ request: Request, context: GroupieRequestContext) async throws -> HTTPResponse.Status {
        let player = try await authenticator.player(request)
        let photoId = try context.parameters.require("photoId")
        let venue = try await database.currentGroup(of: player.id).flatMap { catalog.venue(id: $0.venueId)?.venue }
        let deleted: (photo: Photo, blobUnused: Bool, events: [GroupEvent])
        do {
            deleted = try await database.deletePhoto(id: photoId, by: player.id, now: clock(), events: GroupEvents.photoEvents("photo-removed", venue: venue))
        } catch MembershipError.groupNotFound {
            throw Problem.notFound("photo-not-found", "There is no such photo among your group's.")
        } catch MembershipError.notTheCreator {
            throw Problem(.forbidden, code: "not-allowed", detail: "Only the photographer or the group's creator can delete a photo.")
        }
        if deleted.blobUnused { try await BlockingIO.run { [blobs] in blobs.removeFiles(of: deleted.photo.blob) } }
        context.logger.info("photo deleted", metadata: ["photo": "\(photoId)", "by": "\(player.id)"])
        events.hub.publish(deleted.events)
        if deleted.photo.task != nil { collages.refresh(groupId: deleted.photo.groupId) }
        return .noContent
    }

    func choose(_ request: Request, context: GroupieRequestContext) async throws -> HTTPResponse.Status {
        let player = try await authenticator.player(request)
        // Outsiders learn nothing, not even whether their body was well formed.
        guard try await database.groupSeen(by: player.id, groupId: try context.parameters.require("groupId")) != nil else {
            throw GroupController.groupNotFound
        }
        let body = try await request.decode(as: ChoiceRequest.self, context: context)
        let groupId = try context.parameters.require("groupId")
        let missionId = try context.parameters.require("missionId"), taskId = try context.parameters.require("taskId")
        do {
            try await database.choosePhoto(groupId: groupId, missionId: missionId, taskId: taskId, photoId: body.photoId, by: player.id)
        } catch MembershipError.groupNotFound {
            throw GroupController.groupNotFound
        } catch PhotoError.notOfThisTask {
            throw Problem(.unprocessableContent, code: "photo-not-of-task", detail: "That photo is not one of this task's photos.")
        }
        await events.emit(groupId: groupId, [.init(type: "choice-changed", fields: ["missionId": missionId, "taskId": taskId, "photoId": body.photoId])])
        collages.refresh(groupId: groupId)
        return .noContent
    }
}

extension HTTPField.Name {
    static let idempotencyKey = Self("Idempotency-Key")!
}

extension ImageWorkQueue {
    /// `run`, with errors of the work turned into what the client should see.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T, mapError: @escaping @Sendable (any Error) -> any Error) async throws -> T {
        do {
            return try await run(work)
        } catch {
            throw mapError(error)
        }
    }
}
