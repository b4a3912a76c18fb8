import Foundation
import GroupieCore
import GroupieImaging
import GroupieStorage

/// Reading a stored photo's files, for the image route and the album download.
struct PhotoFiles: Sendable {
    let blobs: BlobStore
    let processor: PhotoProcessor
    let fileIO: FileIO

    /// The bytes of a variant. The served original of a photo stored before served originals
    /// were kept is made now, once; this throws when the file is gone or cannot be made, so
    /// that nothing else is ever sent.
    func bytes(of photo: Photo, _ variant: PhotoVariant) async throws -> Data {
        let path = try await path(of: photo, variant)
        return try await fileIO.run { try Data(contentsOf: URL(fileURLWithPath: path)) }
    }

    /// The variant's file, opened to be sent a chunk at a time.
    func opened(_ photo: Photo, _ variant: PhotoVariant) async throws -> StreamedFile {
        try await StreamedFile.open(try await path(of: photo, variant), fileIO: fileIO)
    }

    /// Where the variant's file is, made first when it is a served original not kept yet.
    func path(of photo: Photo, _ variant: PhotoVariant) async throws -> String {
        try await fileIO.run { [blobs, processor] in
            // A stored name that is not a photo's (a row no server wrote) has no file: as missing.
            guard BlobStore.isBlobName(photo.blob) else { throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: photo.blob]) }
            let path = try blobs.path(blob: photo.blob, variant: variant.suffix)
            if FileManager.default.fileExists(atPath: path) { return path }
            guard case .served(let format) = variant else { throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path]) }
            let received = try blobs.path(blob: photo.blob, variant: PhotoVariant.received(format).suffix)
            let temporary = blobs.temporaryDirectory + "/" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: temporary) }
            try PhotoIngest.makeServedOriginal(of: received, header: try processor.inspect(fileAt: received), to: temporary, processor: processor)
            try blobs.store(temporary, blob: photo.blob, variant: variant.suffix)
            return path
        }
    }

    /// Removes a blob's files when no photo uses them any more.
    func removeUnused(_ blob: String, database: any GroupieStore) async throws {
        if try await !database.isBlobUsed(blob) { try await removeFiles(of: [blob]) }
    }

    func removeFiles(of blobs: [String]) async throws {
        guard !blobs.isEmpty else { return }
        try await fileIO.run { [store = self.blobs] in blobs.forEach(store.removeFiles(of:)) }
    }
}
