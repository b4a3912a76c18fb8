import Foundation
import NIOCore
import Testing

@testable import GroupieServer

@Suite("Form uploads")
struct FormFileExtractorTests {
    static func extract(_ body: [UInt8], contentType: String = "multipart/form-data; boundary=XyZ", chunk: Int) throws -> Data {
        try read(body, contentType: contentType, chunk: chunk).file
    }

    /// The form fed `chunk` bytes at a time, and the file's bytes taken as they come.
    static func read(_ body: [UInt8], contentType: String = "multipart/form-data; boundary=XyZ", chunk: Int) throws -> (file: Data, form: FormFileExtractor) {
        let form = try #require(try FormFileExtractor(contentType: contentType))
        var file = Data()
        var index = 0
        while index < body.count {
            let end = min(body.count, index + chunk)
            try form.feed(ByteBuffer(bytes: body[index..<end]))
            file += form.takeFileBytes()
            index = end
        }
        try form.finish()
        return (file, form)
    }

    static let photo: [UInt8] = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7919) } + Array("\r\n--Xy".utf8) + [0xFF, 0xD9]

    static var form: [UInt8] {
        Array("--XyZ\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n--XyZ\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"a.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
            + photo + Array("\r\n--XyZ\r\nContent-Disposition: form-data; name=\"other\"; filename=\"b.jpg\"\r\n\r\nxx\r\n--XyZ--\r\nepilogue".utf8)
    }

    @Test("The first file field's bytes come out exactly, however the body is cut into buffers", arguments: [1, 2, 3, 7, 64, 1000, 100_000])
    func chunkings(_ chunk: Int) throws {
        #expect(try Self.extract(Self.form, chunk: chunk) == Data(Self.photo))
    }

    @Test("The form's text fields (the first of each name) and the file's name come out too, however the body is cut", arguments: [1, 3, 64, 100_000])
    func fieldsAndName(_ chunk: Int) throws {
        let body = Array("--XyZ\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\nt0k3n\r\n--XyZ\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\nsecond\r\n".utf8)
            + Array("--XyZ\r\nContent-Disposition: form-data; name=\"kind\"\r\n\r\nicons\r\n".utf8)
            + Array("--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"Haj; bild \u{e5}.png\"\r\n\r\n".utf8) + Self.photo
            + Array("\r\n--XyZ--\r\n".utf8)
        let (file, form) = try Self.read(body, chunk: chunk)
        #expect(file == Data(Self.photo))
        #expect(form.fields == ["csrf": "t0k3n", "kind": "icons"])
        #expect(form.fileName == "Haj; bild \u{e5}.png")
        // A text field is a few words: one over 4 KiB is refused, not held.
        let long = Array("--XyZ\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\n".utf8) + Array(repeating: 0x61, count: 5000) + Array("\r\n--XyZ--\r\n".utf8)
        #expect(throws: Problem.self) { _ = try Self.extract(long, chunk: chunk) }
    }

    @Test("Hostile forms are a 400, never a trap", arguments: [
        "--XyZ\r\nX-\u{e9}: 1\r\n\r\nbody\r\n--XyZ--\r\n",  // a header name that is not ASCII
        "--XyZ\r\n" + String(repeating: "X-A: 1\r\n", count: 17) + "\r\nbody\r\n--XyZ--\r\n",  // too many header lines
        "--XyZ\r\nContent-Disposition: form-data; filename=\"" + String(repeating: "a", count: 5000) + "\"\r\n\r\nx\r\n--XyZ--\r\n",
        "--XyZ\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"a.jpg\"\r\n\r\nno end",  // no closing boundary
        "--XyZ garbage",  // a boundary followed by neither CRLF nor --
        String(repeating: "p", count: 5000),  // no boundary at all
    ])
    func hostile(_ body: String) {
        #expect(throws: Problem.self) { _ = try Self.extract(Array(body.utf8), chunk: 100) }
    }

    @Test("Boundaries must be 1 to 70 of the characters RFC 2046 allows", arguments: [
        "multipart/form-data; boundary=", "multipart/form-data; boundary=\"\"", "multipart/form-data",
        "multipart/form-data; boundary=" + String(repeating: "b", count: 71), "multipart/form-data; boundary=a\u{e9}",
    ])
    func boundaries(_ contentType: String) {
        #expect(throws: Problem.self) { _ = try FormFileExtractor(contentType: contentType) }
    }

    @Test("Other content types are not forms")
    func notForms() throws {
        #expect(try FormFileExtractor(contentType: "image/jpeg") == nil)
    }
}
