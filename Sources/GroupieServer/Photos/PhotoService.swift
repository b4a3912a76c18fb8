import Foundation
import GroupieContent
import GroupieCore
import GroupieImaging
import GroupieStorage
import Hummingbird
import Logging
import Tracing

/// A member's photos: upload, delete and choose. Each calls the store once, which decides by
/// `PhotoRules` and commits the change with its events; then this owns what follows the commit:
/// the events reach the group's streams, files no photo has any more go, and the collages the
/// change touches are made again after the answer. Controllers parse the request, call one
/// method here and answer.
struct PhotoService: Sendable {
    let database: any GroupieStore
    let catalog: VenueCatalog
    let ingest: PhotoIngest
    let files: PhotoFiles
    let committed: Committed
    let collages: CollageService
    let toggles: ToggleAllowance
    let clock: @Sendable () -> Date

    /// An upload as its request says it: the bytes, and what the query and headers ask for.
    struct Upload: Sendable {
        /// The task named by `mission` and `task`, not checked against the venue yet; nil for a free photo.
        var task: GroupProgress.TaskKey?
        var choose: Bool
        var idempotencyKey: String?
        var source: PhotoIngest.Source
    }

    /// Stores the photo of a member's upload, or answers a retry of one already stored with the
    /// first photo. `held`: waiting for review, seen by its photographer alone.
    func upload(_ upload: Upload, by player: Player, to group: Group, logger: Logger) async throws -> UploadedPhoto {
        let venue = try await admit(upload.task, to: group)
        // A retry of an upload that already succeeded is answered without processing it again.
        if let key = upload.idempotencyKey, let first = try await uploaded(key, for: upload.task, by: player, to: group) { return first }
        let received: PhotoIngest.Stored
        do {
            received = try await withSpan("photo ingest") { span in
                let stored = try await ingest.store(upload.source)
                span.attributes["groupie.photo.format"] = stored.header.format.rawValue
                return stored
            }
        } catch {
            throw Problem(unusableImage: error) ?? error
        }
        let (blob, header) = (received.blob, received.header)
        let new = NewPhoto(
            groupId: group.id, photographerId: player.id, missionId: upload.task?.missionId, taskId: upload.task?.taskId,
            blob: blob, format: header.format.rawValue, width: header.orientedWidth, height: header.orientedHeight,
            idempotencyKey: upload.idempotencyKey, choose: upload.choose
        )
        let added: AddedPhoto
        do {
            added = try await withSpan("photo commit") { span in
                span.attributes["groupie.group"] = group.id
                return try await database.addPhoto(new, venue: venue, now: clock())
            }
        } catch let error where error is MembershipError || error is PhotoError || error is PhotoRules.Refusal || error is AnswerRules.Refusal || error is StorageFull {
            // The member left, staff closed the group or the mission locked again while the photo
            // was processed, or a concurrent upload used the key for another task; the files go
            // unless another photo has them.
            try await files.removeUnused(blob, database: database)
            throw error
        }
        let photo = added.photo
        guard added.created else {
            // A concurrent retry with the same key: when it brought other bytes, its files belong to no photo.
            if photo.blob != blob { try await files.removeUnused(blob, database: database) }
            return UploadedPhoto(photo: photo, held: added.held)
        }
        logger.info(
            added.held ? "photo held for review" : "photo added",
            metadata: ["photo": "\(photo.id)", "group": "\(group.id)", "pixels": "\(header.width)x\(header.height)"]
        )
        // After the answer: where the subject is, for collages to crop around (a photo without
        // it is looked at when its collage is drawn), then the collages it changes.
        committed.publish(added.events) { [ingest, database] in
            do {
                try await database.setFocus(photoId: photo.id, try await ingest.focus(ofBlob: blob))
            } catch {
                logger.warning("subject of the photo not found: \(error)", metadata: ["photo": "\(photo.id)"])
            }
        }
        if added.held { committed.reviewChanged(groupId: group.id) }
        return UploadedPhoto(photo: photo, held: added.held)
    }

    /// The group takes photos, and the task's mission is unlocked; the group's venue.
    @discardableResult
    func admit(_ task: GroupProgress.TaskKey?, to group: Group) async throws -> Venue? {
        try MembershipRules.requireOpen(group)
        let venue = catalog.venue(id: group.venueId)?.venue
        if let task { try await requireOpen(task, venue: venue, groupId: group.id) }
        return venue
    }

    /// The photo an earlier upload with `key` made (within the key's lifetime), if any; an
    /// upload with the key for another task is refused.
    func uploaded(_ key: String, for task: GroupProgress.TaskKey?, by player: Player, to group: Group) async throws -> UploadedPhoto? {
        guard let first = try await uploaded(key, by: player, to: group) else { return nil }
        guard first.photo.missionId == task?.missionId, first.photo.taskId == task?.taskId else { throw PhotoError.keyReused }
        return first
    }

    /// The photo a player's upload with `key` made in a group, whatever its task: a resumable
    /// upload whose last answer was lost asks for it.
    func uploaded(_ key: String, by player: Player, to group: Group) async throws -> UploadedPhoto? {
        try await database.uploadedPhoto(playerId: player.id, groupId: group.id, key: key, now: clock())
    }

    /// The photographer deletes their photo (the group's creator is refused: they may hide it);
    /// its files go unless another photo has them.
    func delete(_ photoId: String, by player: Player, logger: Logger) async throws {
        let venue = try await database.currentGroup(of: player.id).flatMap { catalog.venue(id: $0.venueId)?.venue }
        let deleted = try await database.deletePhoto(id: photoId, by: player.id, venue: venue, now: clock())
        if deleted.blobUnused { try await files.removeFiles(of: [deleted.photo.blob]) }
        logger.info("photo deleted", metadata: ["photo": "\(photoId)", "by": "\(player.id)"])
        committed.publish(deleted.events)
        // A photo of the group always leaves with its `photo-removed`; one without an event was
        // held for review, and the staff's queue loses it.
        if deleted.events.isEmpty { committed.reviewChanged(groupId: deleted.photo.groupId) }
    }

    /// The group's creator hides a teammate's photo from the group: out of its album, progress
    /// and collages, kept for the venue's staff, who may bring it back.
    func hide(_ photoId: String, by player: Player, logger: Logger) async throws {
        guard let group = try await database.currentGroup(of: player.id), try await database.photo(id: photoId, seenBy: player.id) != nil else {
            throw PhotoError.photoNotFound
        }
        let events = try await database.hidePhotoFromGroup(
            id: photoId, by: player.id, reason: "Hidden from the group by its creator", venue: catalog.venue(id: group.venueId)?.venue, now: clock()
        )
        logger.info("photo hidden by the group's creator", metadata: ["photo": "\(photoId)", "by": "\(player.id)"])
        committed.publish(events)
    }

    /// A member makes one of the task's photos its chosen one.
    func choose(_ photoId: String, for task: GroupProgress.TaskKey, by player: Player, in group: Group) async throws {
        let stored = try await database.choosePhoto(
            groupId: group.id, task: task, photoId: photoId, by: player, venue: catalog.venue(id: group.venueId)?.venue, now: clock()
        )
        committed.publish(stored.events)
    }

    /// A member claims a task ("… is on it"), for the group to see at once.
    func claim(_ task: GroupProgress.TaskKey, by player: Player, in group: Group) async throws {
        let venue = catalog.venue(id: group.venueId)?.venue, now = clock()
        committed.publish(try await toggles.take(player, now: now, {
            try await database.claimTask(groupId: group.id, task: task, by: player, venue: venue, now: now)
        }, changed: { !$0.isEmpty }))
    }

    /// A member gives back the task they claimed.
    func release(_ task: GroupProgress.TaskKey, by player: Player, in group: Group) async throws {
        let now = clock()
        committed.publish(try await toggles.take(player, now: now, {
            try await database.releaseTask(groupId: group.id, task: task, playerId: player.id, now: now)
        }, changed: { !$0.isEmpty }))
    }

    // MARK: Reading

    /// The photo that is its task's now (nil for a free photo, or a task that has none).
    func taskPhoto(of photo: Photo) async throws -> Photo? {
        guard let task = photo.task else { return nil }
        return try await database.taskPhotos(groupId: photo.groupId).chosen[task]
    }

    /// A page of the group's album (`limit` photos at most, newest first), the group's collages,
    /// and the player's own photos waiting for review.
    func album(of groupId: String, seenBy player: Player, missionId: String?, before: String?, limit: Int) async throws
        -> (photos: [Photo], collages: [CollageRecord], held: [Photo])
    {
        let photos = try await database.photos(groupId: groupId, missionId: missionId, before: before, limit: limit)
        return (photos, try await collages.current(groupId: groupId), try await database.heldPhotos(groupId: groupId, photographerId: player.id))
    }

    /// The photo, when a signed URL names it or `viewer`'s group has it; one waiting for review
    /// only for a signed URL (which went to its photographer alone) or its photographer.
    func photo(_ id: String, signed: Bool, seenBy viewer: Player?) async throws -> Photo? {
        if signed {
            if let photo = try await database.photo(id: id) { return photo }
        } else if let viewer, let photo = try await database.photo(id: id, seenBy: viewer.id) {
            return photo
        }
        guard let held = try await database.heldPhoto(id: id) else { return nil }
        return signed || held.photographerId == viewer?.id ? held : nil
    }

    /// A variant's file, opened to be sent a chunk at a time.
    func file(_ variant: PhotoVariant, of photo: Photo) async throws -> StreamedFile {
        try await files.opened(photo, variant)
    }

    /// The task is the venue's and its mission is unlocked for the group. The store checks the
    /// lock again in the photo's own transaction; this only saves processing a refused photo.
    private func requireOpen(_ task: GroupProgress.TaskKey, venue: Venue?, groupId: String) async throws {
        let missionId = task.missionId
        guard let venue, let mission = venue.mission(id: missionId) else {
            throw Problem(.unprocessableContent, code: "unknown-mission", detail: "The venue has no mission '\(missionId.prefix(64))'.")
        }
        guard let missionTask = mission.task(id: task.taskId) else {
            throw Problem(.unprocessableContent, code: "unknown-task", detail: "Mission '\(missionId)' has no task '\(task.taskId.prefix(64))'.")
        }
        guard missionTask.kind == .photo else {
            throw Problem(.unprocessableContent, code: "not-a-photo-task", detail: "Task '\(task.taskId)' is answered, not photographed.")
        }
        let progress = GroupProgress(venue: venue, doneTasks: try await database.taskPhotos(groupId: groupId).done)
        guard progress.mission(missionId)?.isUnlocked == true else {
            throw Problem.missionLocked(missionId, after: mission.after)
        }
    }
}
