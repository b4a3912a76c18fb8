import Crypto
import Foundation
import GroupieCore
import GroupieImaging
import GroupieStorage
import Hummingbird

/// An upload's way from request body to stored files: received to a temporary file (hashed on
/// the way), recognised from its bytes, checked, made into what is served, and stored
/// durably under a name of its own, before any row points at it.
///
/// Each upload's files have their own name, even for bytes stored before: files shared by two
/// photos could be removed for the one deleted while the other's row was still on its way to
/// commit (its upload having found the files there), leaving a photo answered 201 without them.
struct PhotoIngest: Sendable {
    let blobs: BlobStore
    let processor: PhotoProcessor
    let work: ImageWorkQueue
    let fileIO: FileIO
    let maxUploadBytes: Int

    struct Stored: Sendable {
        /// The name of the photo's files: SHA-256 of the bytes' own SHA-256 and a random id of the
        /// upload, 64 hex digits as before.
        var blob: String
        var header: PhotoProcessor.Header
    }

    /// Where an upload's bytes are: the request's body (the image, or a form with it), or a
    /// file on disk that a resumable upload assembled, which is read, not moved.
    enum Source: Sendable {
        case body(RequestBody, contentType: String?)
        case file(String)
    }

    /// Throws `Problem`s about the body, `PhotoProcessor.Failure` and `ServedOriginal.Malformed`
    /// about the image, and `StorageFull` when the disk has no room for it: then neither its
    /// temporary files nor any of its stored ones stay behind.
    func store(_ source: Source) async throws -> Stored {
        do {
            return try await receiveAndStore(source)
        } catch let error where !(error is Problem) && StorageFull.isOutOfSpace(error) {
            throw StorageFull("no room for a photo in \(blobs.directory): \(error)")
        }
    }

    private func receiveAndStore(_ source: Source) async throws -> Stored {
        let base = blobs.temporaryDirectory + "/" + UUID().uuidString
        let temporaryFiles = [base, base + "-display.jpg", base + "-thumb.jpg", base + "-served"]
        defer { for file in temporaryFiles { try? FileManager.default.removeItem(atPath: file) } }

        let contentHash: String
        switch source {
        case .body(let body, let contentType):
            contentHash = try await UploadReceiver.receive(body, contentType: contentType, to: base, limit: maxUploadBytes, fileIO: fileIO).sha256
        case .file(let path):
            contentHash = try await fileIO.run { try Self.copy(path, to: base) }
        }
        let blob = Self.blobName(contentHash: contentHash, upload: UUID())
        let header = try await work.run { [processor, blobs] in
            // The structure is checked before libvips reads anything: a chunk that declares
            // more bytes than the file has would make the decoder allocate them.
            let original = try Data(contentsOf: URL(fileURLWithPath: base))
            guard let format = PhotoFormat.detect(original.prefix(PhotoFormat.signatureLength)) else { throw PhotoProcessor.Failure.unsupportedFormat }
            let unrotated = try ServedOriginal.checkStructure(original, format: format)
            let header = try processor.inspect(fileAt: base)
            try processor.requirePhotoShape(header)
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
            // Files are durable before the row that points at them commits; a photo that cannot
            // have all of them keeps none.
            do {
                try blobs.store(base + "-display.jpg", blob: blob, variant: PhotoVariant.display.suffix)
                try blobs.store(base + "-thumb.jpg", blob: blob, variant: PhotoVariant.thumb.suffix)
                try blobs.store(base + "-served", blob: blob, variant: PhotoVariant.served(header.format).suffix)
                try blobs.store(base, blob: blob, variant: PhotoVariant.received(header.format).suffix)
            } catch {
                blobs.removeFiles(of: blob)
                throw error
            }
            return header
        }
        return Stored(blob: blob, header: header)
    }

    /// Copies the file, hashing it on the way (SHA-256, hex). Blocks.
    static func copy(_ path: String, to destination: String) throws -> String {
        guard FileManager.default.createFile(atPath: destination, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        let input = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? input.close() }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: destination))
        defer { try? output.close() }
        var hasher = SHA256()
        while let chunk = try input.read(upToCount: UploadReceiver.flushSize), !chunk.isEmpty {
            hasher.update(data: chunk)
            try output.write(contentsOf: chunk)
        }
        return Hex.string(hasher.finalize())
    }

    static func blobName(contentHash: String, upload: UUID) -> String {
        Hex.string(SHA256.hash(data: Data("\(contentHash)/\(upload.uuidString)".utf8)))
    }

    /// Where the subject of a stored photo is, from its thumbnail, for collages to crop around.
    func focus(ofBlob blob: String) async throws -> Focus {
        let thumb = try blobs.path(blob: blob, variant: PhotoVariant.thumb.suffix)
        return try await work.run { [processor] in try processor.focus(of: thumb) }
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
        // Written through a handle, so that a full disk is told as such.
        guard FileManager.default.createFile(atPath: output, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        defer { try? handle.close() }
        try handle.write(contentsOf: served)
    }
}
