import Foundation
import GroupieContent
import GroupieCore
import Testing

/// Every file of `BrokenMissions/` must produce exactly the lines of its `.expected` file.
@Suite("Broken mission files")
struct BrokenMissionTests {
    static let corpus: [String] = (try? FileManager.default.contentsOfDirectory(atPath: Fixtures.broken))?
        .filter { $0.hasSuffix(".yaml") }.sorted() ?? []

    @Test("The corpus is there")
    func corpusIsThere() {
        #expect(Self.corpus.count >= 15)
    }

    @Test("Each broken file gives its exact messages", arguments: corpus)
    func exactMessages(file: String) throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Fixtures.broken + "/" + file))
        let report = MissionFileReader(assetsDirectory: Fixtures.brokenAssets).read(bytes: bytes, path: file)
        let expectedPath = Fixtures.broken + "/" + file.replacingOccurrences(of: ".yaml", with: ".expected")
        let expected = try String(contentsOfFile: expectedPath, encoding: .utf8)
            .split(separator: "\n").map(String.init)
        // The assets folder is named in messages; `<assets>` stands for it in the expected files.
        let assets = URL(fileURLWithPath: Fixtures.brokenAssets).standardizedFileURL.path
        #expect(report.problems.map { $0.description.replacingOccurrences(of: "'\(assets)'", with: "<assets>") } == expected)
        #expect(report.venue == nil, "a file with errors must not give a venue")
    }

    @Test("A file too large to be a mission file is refused before it is parsed")
    func tooLarge() throws {
        let folder = try Fixtures.temporaryFolder()
        let path = folder + "/huge.yaml"
        let line = "# " + String(repeating: "x", count: 1022) + "\n"
        try Data(String(repeating: line, count: 4 * 1024 + 1).utf8).write(to: URL(fileURLWithPath: path))
        let report = MissionFileReader(assetsDirectory: nil).read(fileAt: path)
        #expect(report.problems.map(\.description) == ["\(path):1:1: error: the file is 4.0 MB; a mission file may be at most 4 MB"])
    }

    @Test("Texts are trimmed: a block scalar's final line break is not part of the text")
    func blockScalars() throws {
        let yaml = """
            id: trimmed
            name: |
              The Museum
            languages: [en]
            timezone: UTC
            theme: { color: "#AbCdEf" }
            missions:
              - id: one
                title: >
                  A long title
                  on two lines
                icon: icons/fish.svg
                tasks: [{ id: t, prompt: "  Find it  " }]
            """
        let venue = try #require(MissionFileReader(assetsDirectory: Fixtures.brokenAssets).read(bytes: Data(yaml.utf8), path: "trimmed.yaml").venue)
        #expect(venue.name == .plain("The Museum"))
        #expect(venue.missions[0].title == .plain("A long title on two lines"))
        #expect(venue.missions[0].tasks[0].prompt == .plain("Find it"))
        #expect(venue.theme.color == "#abcdef")
    }

    @Test("Review before sharing is a venue's setting, off unless the file says so")
    func reviewSetting() throws {
        func venue(_ extra: String) throws -> Venue? {
            let yaml = "id: r\nname: R\nlanguages: [en]\ntimezone: UTC\ntheme: { color: \"#123456\" }\n\(extra)"
                + "missions: [{ id: m, title: M, icon: icons/fish.svg, tasks: [{ id: t, prompt: P }] }]\n"
            return MissionFileReader(assetsDirectory: Fixtures.brokenAssets).read(bytes: Data(yaml.utf8), path: "r.yaml").venue
        }
        #expect(try venue("")?.review == PhotoReview.none)
        #expect(try venue("review: none\n")?.review == PhotoReview.none)
        #expect(try venue("review: before_sharing\n")?.review == .beforeSharing)
        #expect(try venue("review: [before_sharing]\n") == nil)
    }

    @Test("Colours are ASCII hex digits only")
    func fullwidthColour() throws {
        let yaml = "id: c\nname: C\nlanguages: [en]\ntimezone: UTC\ntheme: { color: \"#ＡＢＣ123\" }\nmissions: [{ id: m, title: M, icon: icons/fish.svg, tasks: [{ id: t, prompt: P }] }]\n"
        let report = MissionFileReader(assetsDirectory: Fixtures.brokenAssets).read(bytes: Data(yaml.utf8), path: "c.yaml")
        #expect(report.venue == nil)
        #expect(report.errors.map(\.message).first?.hasPrefix("'color' must be a colour") == true)
    }

    @Test("A missing file is a problem, not a crash")
    func missingFile() {
        let report = MissionFileReader(assetsDirectory: nil).read(fileAt: "/nonexistent/venue.yaml")
        #expect(report.venue == nil)
        #expect(report.problems.count == 1)
        #expect(report.problems[0].description.hasPrefix("/nonexistent/venue.yaml:1:1: error: the file cannot be read"))
    }

    @Test("Aliases that expand too far are refused, quickly")
    func aliasBomb() throws {
        var yaml = "id: bomb\nname: Bomb\nlanguages: [en]\ntimezone: Europe/London\ntheme: {color: \"#123456\"}\n"
        yaml += "x-task: &t {id: t, prompt: x}\n"
        yaml += "x-tasks: &ts [" + Array(repeating: "*t", count: 100_000).joined(separator: ",") + "]\n"
        yaml += "x-mission: &m {id: m, title: x, icon: i.svg, tasks: *ts}\n"
        yaml += "missions: [" + Array(repeating: "*m", count: 100).joined(separator: ",") + "]\n"
        let report = MissionFileReader(assetsDirectory: nil).read(bytes: Data(yaml.utf8), path: "bomb.yaml")
        #expect(report.venue == nil)
        #expect(report.problems.contains { $0.message.hasPrefix("the file is too complex to check") })
    }

    @Test("Lists and mappings nested thousands deep are refused with their place, before the YAML reader could overflow its stack (found by the fuzzer)")
    func deepNesting() throws {
        let head = "id: deep\nname: Deep\nlanguages: [en]\ntimezone: Europe/London\ntheme: {color: \"#123456\"}\nmissions:\n"
        for body in [
            "  - " + String(repeating: "{a: ", count: 200_000),
            "  - " + String(repeating: "[", count: 200_000),
            (0..<2_000).map { String(repeating: " ", count: 2 + 2 * $0) + "k\($0):\n" }.joined(),
        ] {
            let report = MissionFileReader(assetsDirectory: nil).read(bytes: Data((head + body).utf8), path: "deep.yaml")
            #expect(report.venue == nil)
            let problem = try #require(report.problems.first)
            #expect(problem.message.hasPrefix("lists and mappings nest too deep"), "\(problem)")
            #expect(problem.line >= 7)
        }
        // The fuzzer's input, kept with its seeds.
        let found = try Data(contentsOf: URL(fileURLWithPath: Fixtures.repository.path + "/Fuzz/Corpus/FuzzMissionFile/fixed-deep-flow-nesting.yaml"))
        #expect(MissionFileReader(assetsDirectory: nil).read(bytes: found, path: "found.yaml").problems.first?.message.hasPrefix("lists and mappings nest too deep") == true)
    }
}
