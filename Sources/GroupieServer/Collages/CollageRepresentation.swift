import Foundation
import GroupieStorage
import Hummingbird

/// A mission's collage in the album and in the group document.
struct CollageDocument: Encodable, Sendable {
    struct URLs: Encodable, Sendable {
        var jpg: String
        var png: String
    }

    var missionId: String
    /// `ready`; the group document also says `rendering` while a completed mission's collage is made.
    var status: String
    var width: Int?
    var height: Int?
    var createdAt: Date?
    var urls: URLs?

    init(_ record: CollageRecord, signer: ImageURLSigner, now: Date) {
        missionId = record.missionId
        status = "ready"
        width = record.width
        height = record.height
        createdAt = record.createdAt
        urls = URLs(
            jpg: signer.collageURL(groupId: record.groupId, missionId: record.missionId, format: "jpg", version: record.key, now: now),
            png: signer.collageURL(groupId: record.groupId, missionId: record.missionId, format: "png", version: record.key, now: now)
        )
    }

    init(renderingMissionId: String) {
        missionId = renderingMissionId
        status = "rendering"
    }
}
