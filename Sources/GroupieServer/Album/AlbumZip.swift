import Foundation
import GroupieCore
import GroupieImaging
import GroupieStorage
import Hummingbird
import Logging

/// Groups' albums written into one streamed ZIP: each group's photos as served (originals
/// rebuilt without location data, as the visitors' own download has them) and its current
/// collages, in the folders of its `AlbumPlan`, one file at a time.
struct AlbumZip: Sendable {
    let collages: CollageService
    let files: PhotoFiles
    let fileIO: FileIO
    let logger: Logger
    let timeZone: TimeZone

    /// One group's album: its plan's folders under `prefix` (empty for the group's own download,
    /// the group's name and a slash in the staff's downloads of several groups).
    struct Album: Sendable {
        let groupId: String
        let prefix: String
        let plan: AlbumPlan
        let collages: [CollageRecord]
    }

    /// Every photo of a group that its members see, newest first, read a page at a time.
    static func photos(of groupId: String, in database: any GroupieStore) async throws -> [Photo] {
        var photos: [Photo] = []
        var before: String?
        repeat {
            let page = try await database.photos(groupId: groupId, missionId: nil, before: before, limit: 200)
            photos += page
            before = page.count == 200 ? page.last?.id : nil
        } while before != nil
        return photos
    }

    func write(_ album: Album, into zip: inout ZipStream, writer: inout some ResponseBodyWriter) async throws {
        for folder in album.plan.folders {
            let path = album.prefix + folder.name + "/"
            for photo in folder.photos {
                try await add(
                    { try await files.opened(photo, .served(try PhotoFormat(stored: photo.format))) },
                    named: path + album.plan.fileStem(photo) + "." + PhotoVariant.servedExtension(photo),
                    modified: photo.createdAt, into: &zip, writer: &writer, leftOut: ["photo": "\(photo.id)"]
                )
            }
            if let missionId = folder.missionId, let record = album.collages.first(where: { $0.missionId == missionId }) {
                try await add(
                    { try await StreamedFile.open(try await collages.file(groupId: album.groupId, missionId: missionId, language: album.plan.language).path, fileIO: fileIO) },
                    named: path + album.plan.collageStem(folder) + ".jpg",
                    modified: record.createdAt, into: &zip, writer: &writer, leftOut: ["mission": "\(missionId)"]
                )
            }
        }
    }

    /// One file: its checksum first (the entry's header carries it), then its bytes from the
    /// same open file, a chunk at a time as the client reads. A file that cannot be read is left
    /// out, and logged.
    private func add(
        _ open: () async throws -> StreamedFile, named name: String, modified: Date, into zip: inout ZipStream,
        writer: inout some ResponseBodyWriter, leftOut metadata: Logger.Metadata
    ) async throws {
        let file: StreamedFile, header: ByteBuffer
        do {
            file = try await open()
            let crc = try await file.crc32()
            let unique = zip.uniqueName(name)
            header = try zip.entryHeader(name: unique, size: UInt64(file.size), crc: crc, modified: modified, timeZone: timeZone)
        } catch {
            logger.error("album file left out: \(error)", metadata: metadata)
            return
        }
        try await writer.write(header)
        try await file.write(to: &writer)
    }
}
