import Foundation
import GroupieContent
import GroupieCore
import GroupieTestSupport
import Testing

@Suite("Sample venues")
struct SampleVenueTests {
    static let samples: [String] = (try? MissionFolder(directory: Fixtures.missions, assetsDirectory: Fixtures.assets).missionFiles()) ?? []

    @Test("There are sample venues")
    func thereAreSamples() {
        #expect(Self.samples.count >= 2)
    }

    @Test("Each sample file is valid, without warnings", arguments: samples)
    func valid(path: String) throws {
        let report = MissionFileReader(assetsDirectory: Fixtures.assets).read(fileAt: path)
        #expect(report.problems.map(\.description) == [])
        let venue = try #require(report.venue)
        #expect(!venue.missions.isEmpty)
    }

    @Test("A task of the group photographing itself opens the front camera; the others the back one")
    func cameras() throws {
        let venue = try #require(MissionFileReader(assetsDirectory: Fixtures.assets).read(fileAt: Fixtures.missions + "/art-museum.yaml").venue)
        let tasks = venue.missions.flatMap(\.tasks)
        #expect(tasks.filter { $0.camera == .front }.map(\.id) == ["recreate-a-painting"])
        #expect(tasks.filter { $0.camera == .back }.count == tasks.count - 1)
    }

    @Test("The whole rocket and the whole shark are kept whole; every other task may be cropped; the beret goes on the head")
    func framing() throws {
        let reader = MissionFileReader(assetsDirectory: Fixtures.assets)
        let science = try #require(reader.read(fileAt: Fixtures.missions + "/science-centre.yaml").venue)
        let tasks = science.missions.flatMap(\.tasks)
        #expect(tasks.filter { $0.framing == .whole }.map(\.id) == ["shark-from-below", "whole-rocket"])
        #expect(science.mission(id: "heartbeat")?.stickerPlace == nil)
        #expect(science.mission(id: "heartbeat")?.stickerCorner == .bottomRight)
        let art = try #require(reader.read(fileAt: Fixtures.missions + "/art-museum.yaml").venue)
        let beret = try #require(art.mission(id: "be-the-artist"))
        #expect(beret.stickerPlace == .head && beret.stickerCorner == .topRight)
        #expect(art.missions.flatMap(\.tasks).allSatisfy { $0.framing == .focus })
    }

    @Test("The science centre has 9 missions of 1 to 3 tasks in Swedish and English")
    func scienceCentre() throws {
        let venue = try #require(MissionFileReader(assetsDirectory: Fixtures.assets).read(fileAt: Fixtures.missions + "/science-centre.yaml").venue)
        #expect(venue.languages == ["sv", "en"])
        #expect(venue.missions.count == 9)
        #expect(venue.missions.allSatisfy { (1...3).contains($0.tasks.count) })
    }

    @Test("The science centre has a floor plan with a pin for every mission, each inside it, and hints in both languages")
    func floorPlan() throws {
        let venue = try #require(MissionFileReader(assetsDirectory: Fixtures.assets).read(fileAt: Fixtures.missions + "/science-centre.yaml").venue)
        #expect(venue.map == "maps/science-centre.svg")
        let pins = venue.missions.compactMap { $0.location?.pin }
        #expect(pins.count == venue.missions.count)
        #expect(pins.allSatisfy { MapPin.range.contains($0.x) && MapPin.range.contains($0.y) })
        #expect(Set(pins).count == pins.count, "no two missions share a pin")
        let hint = try #require(venue.mission(id: "shark-tunnel")?.location?.hint)
        #expect(hint.resolved(language: "sv", fallback: "sv") != hint.resolved(language: "en", fallback: "sv"))
    }

    @Test("The art museum has at least 6 missions in English and French, one a sticker mission")
    func artMuseum() throws {
        let venue = try #require(MissionFileReader(assetsDirectory: Fixtures.assets).read(fileAt: Fixtures.missions + "/art-museum.yaml").venue)
        #expect(venue.languages == ["en", "fr"])
        #expect(venue.missions.count >= 6)
        #expect(venue.missions.contains { $0.style == .sticker && $0.tasks.count == 1 && $0.sticker != nil })
    }

    /// The schema editors use must accept what the loader accepts: checked with Python's
    /// `jsonschema`, a standard validator that is independent of Groupie's code.
    @Test("Each sample file passes the JSON Schema", arguments: samples)
    func schema(path: String) throws {
        let output = try Self.validateWithSchema([path])
        #expect(output.status == 0, "\(output.text)")
    }

    /// Each broken file with the error the schema must report for it: where, and what.
    static let schemaRejections: [(file: String, line: String)] = [
        ("unknown-keys.yaml", "['missions', 0]: Additional properties are not allowed ('titel' was unexpected)"),
        ("missing-required.yaml", "[]: 'timezone' is a required property"),
        ("wrong-types.yaml", "['rules', 'joinable_hours']: 500 is greater than the maximum of 168"),
        ("empty-texts.yaml", "['missions', 0, 'tasks', 0, 'hint']: '   ' is not valid under any of the given schemas"),
        ("bad-ids.yaml", "['missions', 0, 'tasks', 0, 'id']: 'fish_1' is not valid under any of the given schemas"),
        ("task-count.yaml", "['missions', 0, 'tasks']: [] should be non-empty"),
        ("venue-values.yaml", "['theme', 'color']: 'blue' does not match"),
        ("bad-framing.yaml", "['missions', 0, 'tasks', 0, 'framing']: 'wholle' is not one of ['whole', 'focus']"),
        ("bad-sticker-place.yaml", "['missions', 0, 'sticker_place']: 'hed' is not one of ['head', 'beside', 'over']"),
    ]

    @Test("The JSON Schema rejects broken files that a schema can describe, with the validator's own error", arguments: schemaRejections.map(\.file))
    func schemaRejects(file: String) throws {
        let output = try Self.validateWithSchema([Fixtures.broken + "/" + file])
        #expect(output.status == 1, "\(output.text)")
        let expected = try #require(Self.schemaRejections.first { $0.file == file }?.line)
        let lines = output.text.split(separator: "\n").map(String.init)
        // Only the validator's lines (a traceback also exits with 1), and the one expected among them.
        #expect(!lines.isEmpty && lines.allSatisfy { $0.hasPrefix(Fixtures.broken + "/" + file + ": [") }, "\(output.text)")
        #expect(lines.contains { $0.contains(expected) }, "\(output.text)")
    }

    static func validateWithSchema(_ paths: [String]) throws -> (status: Int32, text: String) {
        let script = """
            import json, sys, yaml
            from jsonschema import Draft202012Validator
            schema = json.load(open(sys.argv[1]))
            Draft202012Validator.check_schema(schema)
            validator = Draft202012Validator(schema)
            failed = False
            for path in sys.argv[2:]:
                document = yaml.safe_load(open(path, encoding="utf-8"))
                for error in validator.iter_errors(document):
                    failed = True
                    print(f"{path}: {list(error.absolute_path)}: {error.message}")
            sys.exit(1 if failed else 0)
            """
        let result = try ChildProcess.run(command: "python3", ["-c", script, Fixtures.missions + "/venue.schema.json"] + paths)
        return (result.status, result.output + result.errors)
    }
}

@Suite("Found-it codes that can be guessed")
struct GuessableCodeTests {
    @Test("A code with fewer than a million of its kind (four digits, four letters) is warned about at its place; a longer or mixed one is not")
    func guessable() throws {
        let text = try String(contentsOfFile: Fixtures.missions + "/art-museum.yaml", encoding: .utf8)
        for (code, warned) in [("1234", true), ("12345", true), ("LION", true), ("123456", false), ("LION-42", false), ("OWL-7", false)] {
            let edited = text.replacingOccurrences(of: "code: LION-42", with: "code: \(code)")
            let report = MissionFileReader(assetsDirectory: Fixtures.assets).read(bytes: Data(edited.utf8), path: "art-museum.yaml")
            #expect(report.venue != nil, "a warning, not an error: \(code)")
            let warnings = report.problems.filter { $0.severity == .warning }
            if warned {
                let warning = try #require(warnings.first, "\(code)")
                #expect(warning.message.hasPrefix("code '\(code)' is short enough to guess"), "\(warning)")
                #expect(warning.line == 266)
            } else {
                #expect(warnings.isEmpty, "\(code): \(warnings)")
            }
        }
    }
}

@Suite("Texts heavy with marks")
struct OverloadedTextTests {
    @Test("A text of characters each carrying hundreds of marks, or of more bytes than 2,000 characters of any script need, is refused at its place; Vietnamese, Hindi and Japanese pass")
    func overloaded() throws {
        let text = try String(contentsOfFile: Fixtures.missions + "/art-museum.yaml", encoding: .utf8)
        // A task's English prompt.
        let line = try #require(text.components(separatedBy: "\n").firstIndex { $0.contains("en: Find a portrait") })
        func read(_ value: String) -> MissionFileReport {
            var lines = text.components(separatedBy: "\n")
            let indent = lines[line].prefix { $0 == " " }
            lines[line] = "\(indent)en: \"\(value)\""
            return MissionFileReader(assetsDirectory: Fixtures.assets).read(bytes: Data(lines.joined(separator: "\n").utf8), path: "art-museum.yaml")
        }
        let zalgo = String(repeating: "a" + String(repeating: "\u{0301}", count: 300), count: 1_000)
        let refused = read(zalgo)
        #expect(refused.venue == nil)
        #expect(refused.problems.first?.line == line + 1 && refused.problems.first?.message.contains("bytes") == true, "\(refused.problems)")
        let fewMarks = read(String(repeating: "a" + String(repeating: "\u{0301}", count: 12), count: 20))
        #expect(fewMarks.problems.first?.message.contains("accents or other marks") == true, "\(fewMarks.problems)")
        for fine in ["Tiếng Việt có dấu: ở, ữ, ặ", String(repeating: "क्षत्रिय ", count: 200), String(repeating: "日本語のテキスト", count: 200)] {
            #expect(read(fine).problems.isEmpty, "\(read(fine).problems)")
        }
    }
}
