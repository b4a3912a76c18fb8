import Foundation
import Hummingbird

/// A small `multipart/form-data` form read whole (bounded by `limit`), through the one form
/// reader (`FormFileExtractor`): its text fields and its one file, with the file's name as the
/// browser gave it. For the staff's picture uploads, whose forms carry the session's token
/// beside the file.
struct MultipartForm {
    var fields: [String: String]
    var file: Data?
    var fileName: String?

    init(_ request: Request, limit: Int) async throws {
        guard let reader = try request.headers[.contentType].flatMap(FormFileExtractor.init(contentType:)) else {
            throw Problem(.unsupportedMediaType, code: "unsupported-media-type", detail: "Pictures are sent as multipart/form-data.")
        }
        var received = 0
        var file = Data()
        for try await buffer in request.body {
            received += buffer.readableBytes
            guard received <= limit else { throw Problem.tooLarge(limit: limit) }
            try reader.feed(buffer)
            file.append(reader.takeFileBytes())
        }
        try reader.finish()
        fields = reader.fields
        self.file = reader.sawFile ? file : nil
        fileName = reader.fileName
    }
}
