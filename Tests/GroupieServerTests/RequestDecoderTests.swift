import Foundation
import Testing

@testable import GroupieServer

/// A name given twice in one object is read differently by different readers: such a body is
/// refused instead of read one way here and another by a proxy in front.
@Suite("JSON bodies: names given twice")
struct RequestDecoderTests {
    @Test("Names given twice in one object are found, at any depth and however they are written", arguments: [
        (#"{"name": "Ada", "name": "Bo"}"#, "name"),
        (#"{"a": {"b": 1, "c": [1, {"d": 2, "d": 3}]}}"#, "d"),
        (#"{"n\u0061me": 1, "name": 2}"#, "name"),
        (#"{"a": {"x": 1}, "a": 2}"#, "a"),
        (#"{"\"": 1, "\"": 2}"#, "\""),
    ])
    func found(json: String, name: String) {
        #expect(GroupieRequestDecoder.duplicateField(in: Data(json.utf8)) == name)
    }

    @Test("The same name in different objects, in values, or in strings that look like JSON is no repeat", arguments: [
        #"{"name": "name"}"#,
        #"[{"a": 1}, {"a": 2}]"#,
        #"{"a": {"a": {"a": 1}}}"#,
        #"{"a": "\", \"a\": ", "b": "{\"b\": 1, \"b\": 2}"}"#,
        #"{"a": [], "b": {}, "c": [[{"a": 1}]]}"#,
        #""just a string""#,
        #"{"å": 1, "a": 2, "\\": 3, "\\\\": 4}"#,
    ])
    func none(json: String) {
        #expect(GroupieRequestDecoder.duplicateField(in: Data(json.utf8)) == nil)
    }

    private struct Named: Decodable { var name: String }

    @Test("A body in UTF-16 or UTF-32, which Foundation would read, is refused: names given twice hide in it")
    func utf8Only() throws {
        for encoding: String.Encoding in [.utf16LittleEndian, .utf16BigEndian, .utf16, .utf32] {
            let data = try #require(#"{"name": "Ada", "n\u0061me": "Admin"}"#.data(using: encoding))
            #expect(throws: Problem.self, "\(encoding)") { try GroupieRequestDecoder.decode(Named.self, from: data) }
            do {
                _ = try GroupieRequestDecoder.decode(Named.self, from: data)
            } catch let problem as Problem {
                #expect(problem.code == "malformed-json", "\(encoding)")
            }
        }
        #expect(try GroupieRequestDecoder.decode(Named.self, from: Data(#"{"name": "Åsa"}"#.utf8)).name == "Åsa")
    }
}
