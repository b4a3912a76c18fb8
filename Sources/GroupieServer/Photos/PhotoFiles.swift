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
        try await fileIO.run { [blobs, processor] in
            let path = blobs.path(blob: photo.blob, variant: variant.suffix)
            if let bytes = FileManager.default.contents(atPath: path) { return bytes }
            guard case .served(let format) = variant else { throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: path]) }
            let received = blobs.path(blob: photo.blob, variant: PhotoVariant.received(format).suffix)
            let temporary = blobs.temporaryDirectory + "/" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: temporary) }
            try PhotoIngest.makeServedOriginal(of: received, header: try processor.inspect(fileAt: received), to: temporary, processor: processor)
            try blobs.store(temporary, blob: photo.blob, variant: variant.suffix)
            return try Data(contentsOf: URL(fileURLWithPath: path))
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
