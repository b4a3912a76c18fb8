import Foundation
import GroupieCore
import Hummingbird

struct PhotoDocument: Encodable, Sendable {
    struct Photographer: Encodable, Sendable {
        var id: String
        var name: String
    }

    struct URLs: Encodable, Sendable {
        var thumb: String
        var display: String
        var original: String
    }

    var id: String
    var missionId: String?
    var taskId: String?
    var photographer: Photographer
    var width: Int
    var height: Int
    var createdAt: Date
    var urls: URLs
    /// `pending` for a photo the venue's staff have not shared yet (only its photographer gets it).
    var review: String?

    init(_ photo: Photo, signer: ImageURLSigner, now: Date, held: Bool = false) {
        review = held ? "pending" : nil
        id = photo.id
        missionId = photo.missionId
        taskId = photo.taskId
        photographer = Photographer(id: photo.photographerId, name: photo.photographerName)
        width = photo.width
        height = photo.height
        createdAt = photo.createdAt
        urls = URLs(
            thumb: signer.url(photoId: photo.id, variant: "thumb", now: now),
            display: signer.url(photoId: photo.id, variant: "display", now: now),
            original: signer.url(photoId: photo.id, variant: "original", now: now)
        )
    }
}

struct PhotoEnvelope: ResponseEncodable, Sendable {
    var photo: PhotoDocument
    /// Where a task's photo went: `task` when it is the task's photo now, `album` when a
    /// teammate's photo stays the task's and this one joined the album; absent for a free photo
    /// and one waiting for review.
    var placement: String?
    /// With `album`: the task's photo, whose photographer the client names.
    var taskPhoto: TaskPhotoSummary?

    struct TaskPhotoSummary: Encodable, Sendable {
        var id: String
        var photographer: PhotoDocument.Photographer
    }

    init(photo: PhotoDocument, taskPhoto chosen: Photo? = nil) {
        self.photo = photo
        guard photo.review == nil, photo.taskId != nil else { return }
        if let chosen, chosen.id != photo.id {
            placement = "album"
            taskPhoto = TaskPhotoSummary(id: chosen.id, photographer: .init(id: chosen.photographerId, name: chosen.photographerName))
        } else {
            placement = "task"
        }
    }
}

struct PhotoPage: ResponseEncodable, Sendable {
    var photos: [PhotoDocument]
    /// Pass as `before` for the next page; absent on the last page.
    var next: String?
    /// The group's collages, on every page.
    var collages: [CollageDocument]
    /// The caller's own photos that the venue's staff have not shared yet, oldest first, on every
    /// page: their group does not see them.
    var waitingForReview: [PhotoDocument]
}

struct ChoiceRequest: StrictRequestBody {
    static let fields: Set<String> = ["photoId"]
    var photoId: String
}
