import Foundation
import GroupieCore
import GroupieStorage
import HTTPTypes
import Hummingbird

/// Resumable uploads: `PUT /groups/{groupId}/uploads/{uploadKey}` carries one part of the photo
/// (`Content-Range: bytes first-last/total`), `GET` on the same address says how many bytes the
/// server holds, or, once the photo is made, answers it (200): a phone whose last answer was
/// lost on the way learns that the photo arrived. The part that completes the photo is answered
/// as a one-shot upload is (201 with the photo), through the same service; the key is the
/// upload's `Idempotency-Key`, so a retry after the photo was made is answered with it.
extension PhotoController {
    /// Where an upload stands: the bytes the server holds durably, of the total.
    struct UploadProgress: ResponseEncodable, Sendable {
        var offset: Int
        var total: Int
    }

    func putPart(_ request: Request, context: MemberContext) async throws -> Response {
        let name = try Self.uploadName(context)
        let task = try Self.task(request)
        let choose = try Self.choose(request, task: task)
        guard let header = request.headers[.contentRange], let range = ContentRange(header) else {
            throw Problem.badRequest("invalid-content-range", "Each part needs Content-Range: bytes first-last/total (or bytes */total to ask or complete).")
        }
        guard range.isWithinTotal else {
            throw Problem.badRequest("range-past-total", "The part ends past the photo's total of \(range.total) bytes.")
        }
        // Before any byte is kept: a photo over the limit is refused whatever part comes.
        if range.total > photos.ingest.maxUploadBytes { throw Problem.tooLarge(limit: photos.ingest.maxUploadBytes) }
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length != range.length { throw Problem.partLength }

        if let done = try await photos.uploaded(name.key, for: task, by: context.player, to: context.group) {
            return try await created(done.photo, held: done.held).response(from: request, context: context)
        }
        if range.bytes?.lowerBound == 0 { try await photos.admit(task, to: context.group) }
        var state = try await partials.prepare(name, range: range, task: task, choose: choose, address: clientAddress.of(request, context: context))
        if range.bytes != nil {
            let part = partials.folder(of: name) + "/part-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: part) }
            do {
                try await UploadReceiver.receivePart(request.body, to: part, length: range.length, fileIO: partials.fileIO)
            } catch let error where !(error is Problem) && StorageFull.isOutOfSpace(error) {
                throw StorageFull("no room for a part of an upload: \(error)")
            }
            do {
                state = try await partials.append(part, to: name, range: range, task: task)
            } catch let problem as Problem where problem.code == Problem.offsetMismatch(0).code {
                // Another request completed the photo while this part waited: its photo.
                if let done = try await photos.uploaded(name.key, for: task, by: context.player, to: context.group) {
                    return try await created(done.photo, held: done.held).response(from: request, context: context)
                }
                throw problem
            }
        }
        guard state.received == state.total else { return try progress(state, request: request, context: context) }
        return try await complete(name, task: task, request: request, context: context)
    }

    func uploadStatus(_ request: Request, context: MemberContext) async throws -> Response {
        let name = try Self.uploadName(context)
        // The photo is made: a phone whose last answer was lost learns it here (200, the photo).
        if let done = try await photos.uploaded(name.key, by: context.player, to: context.group) {
            return try await created(done.photo, held: done.held, status: .ok).response(from: request, context: context)
        }
        guard let state = try await partials.state(of: name) else {
            throw Problem.notFound("upload-not-found", "The server holds no bytes of this upload; start it from the first byte.")
        }
        return try progress(state, request: request, context: context)
    }

    /// Every byte is there: the photo is made from them as from a one-shot upload's. A photo
    /// the server will never take goes with its bytes; one that failed for a while (a full
    /// disk, the database away) keeps them for the client's next `bytes */total`.
    private func complete(_ name: PartialUploads.Name, task: GroupProgress.TaskKey?, request: Request, context: MemberContext) async throws -> Response {
        let made = try await partials.completing(name) { state, data in
            let upload = PhotoService.Upload(task: task, choose: state.choose, idempotencyKey: name.key, source: .file(data))
            do {
                return (try await photos.upload(upload, by: context.player, to: context.group, logger: context.logger), remove: true)
            } catch let error where Self.isFinal(error) {
                try await partials.discard(name)
                throw error
            }
        }
        if let made { return try await created(made.photo, held: made.held).response(from: request, context: context) }
        // Another request completes it now, or has just done so.
        if let done = try await photos.uploaded(name.key, for: task, by: context.player, to: context.group) {
            return try await created(done.photo, held: done.held).response(from: request, context: context)
        }
        throw Problem.uploadBusy
    }

    private static func isFinal(_ error: any Error) -> Bool {
        if let problem = error as? Problem { return (400..<500).contains(problem.status.code) }
        return error is MembershipError || error is PhotoError || error is PhotoRules.Refusal
    }

    private func progress(_ state: PartialUploads.State, request: Request, context: MemberContext) throws -> Response {
        var response = try UploadProgress(offset: state.received, total: state.total).response(from: request, context: context)
        response.headers[.uploadOffset] = String(state.received)
        return response
    }

    /// The upload's key from the path (also its `Idempotency-Key`): letters, digits, `-` and `_`, or 400.
    static func uploadName(_ context: MemberContext) throws -> PartialUploads.Name {
        let key = try context.parameters.require("uploadKey")
        let bytes = Array(key.utf8)
        let allowed = { (byte: UInt8) in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D || byte == 0x5F
        }
        guard (1...128).contains(bytes.count), bytes.allSatisfy(allowed) else {
            throw Problem.badRequest("invalid-upload-key", "An upload's key is 1 to 128 letters, digits, '-' and '_' (a UUID will do).")
        }
        return PartialUploads.Name(groupId: context.group.id, playerId: context.player.id, key: key)
    }
}

extension HTTPField.Name {
    /// How many bytes of a resumable upload the server holds.
    static let uploadOffset = Self("Upload-Offset")!
}
