import Foundation
import GroupieStorage
import Hummingbird

/// A mission's collage in the album and in the group document.
struct CollageDocument: Codable, Sendable {
    struct URLs: Codable, Sendable {
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
            jpg: signer.collageURL(groupId: record.groupId, missionId: record.missionId, format: "jpg", now: now),
            png: signer.collageURL(groupId: record.groupId, missionId: record.missionId, format: "png", now: now)
        )
    }

    init(renderingMissionId: String) {
        missionId = renderingMissionId
        status = "rendering"
    }

    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("missionId", missionId)
            json.field("status", status)
            if let width, let height, let createdAt, let urls {
                json.field("width", width)
                json.field("height", height)
                json.field("createdAt", Timestamp.string(createdAt))
                json.key("urls")
                json.object { json in
                    json.field("jpg", urls.jpg)
                    json.field("png", urls.png)
                }
            }
        }
    }
}
