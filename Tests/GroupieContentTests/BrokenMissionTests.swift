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

    @Test("The paper a venue prints on is A4 unless the file says letter; anything else is refused with its line")
    func paperSetting() throws {
        func read(_ extra: String) -> MissionFileReport {
            let yaml = "id: p\nname: P\nlanguages: [en]\ntimezone: UTC\ntheme: { color: \"#123456\" }\n\(extra)"
                + "missions: [{ id: m, title: M, icon: icons/fish.svg, tasks: [{ id: t, prompt: P }] }]\n"
            return MissionFileReader(assetsDirectory: Fixtures.brokenAssets).read(bytes: Data(yaml.utf8), path: "p.yaml")
        }
        #expect(read("").venue?.paper == .a4)
        #expect(read("paper: letter\n").venue?.paper == .letter)
        #expect(read("paper: a4\n").venue?.paper == .a4)
        let refused = read("paper: A5\n")
        #expect(refused.venue == nil)
        #expect(refused.errors.first.map { $0.line == 6 && $0.message.contains("a4, letter") } == true, "\(refused.errors)")
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
        // Refused where the largest anchored part is first repeated: the missions' '*m' on line 9.
        let problem = try #require(report.problems.first)
        #expect(report.problems.count == 1)
        #expect(problem.line == 9 && problem.column == 12, "\(problem)")
        #expect(problem.message.hasPrefix("the alias '*m' repeats"), "\(problem)")
    }

    @Test("A long text anchored once and repeated by aliases is refused at the alias that repeats it, before it is served")
    func aliasMultipliesText() throws {
        let long = String(repeating: "Haj ", count: 50_000)
        var yaml = "id: anchors\nname: &name \"\(long)\"\nlanguages: [en]\ntimezone: Europe/London\ntheme: {color: \"#123456\"}\nmissions:\n"
        // As found by the attack: one 200,000-character anchor repeated by 100 titles and 9 prompts.
        for mission in 0..<100 {
            yaml += "  - id: m\(mission)\n    title: *name\n    icon: i.svg\n    tasks: [{id: t, prompt: \(mission < 9 ? "*name" : "x")}]\n"
        }
        let report = MissionFileReader(assetsDirectory: nil).read(bytes: Data(yaml.utf8), path: "anchors.yaml")
        #expect(report.venue == nil)
        let problem = try #require(report.problems.first)
        #expect(report.problems.count == 1)
        // The first use of '*name': the first mission's title, line 8, column 12.
        #expect(problem.line == 8 && problem.column == 12, "\(problem)")
        #expect(problem.message.hasPrefix("the alias '*name' repeats 0.2 MB of text each of the 109 times it is used, which makes the file 21 MB once read"), "\(problem)")
    }

    @Test("A text longer than 2,000 characters is refused where it is")
    func longText() throws {
        let yaml = "id: long\nname: Long\nlanguages: [en]\ntimezone: Europe/London\ntheme: {color: \"#123456\"}\nmissions:\n"
            + "  - id: m\n    title: \(String(repeating: "a", count: 2_001))\n    icon: icons/fish.svg\n    tasks: [{id: t, prompt: \(String(repeating: "b", count: 2_000))}]\n"
        let report = MissionFileReader(assetsDirectory: Fixtures.brokenAssets).read(bytes: Data(yaml.utf8), path: "long.yaml")
        #expect(report.problems.map(\.description) == ["long.yaml:8:12: error: 'title' is 2001 characters long; a text may be at most 2000, which is far more than a phone shows at once"])
    }

    @Test("A FIFO in the missions folder is skipped and said to be, without waiting for a writer")
    func fifo() throws {
        let folder = try Fixtures.temporaryFolder()
        #expect(mkfifo(folder + "/fifo.yaml", 0o644) == 0)
        try FileManager.default.createDirectory(atPath: folder + "/folder.yaml", withIntermediateDirectories: true)
        let listing = try MissionFolder(directory: folder, assetsDirectory: nil).listing()
        #expect(listing.missionFiles.isEmpty)
        #expect(listing.skipped.map(\.description) == [
            "\(folder)/fifo.yaml:1:1: error: this is a FIFO (named pipe), not a regular file: it is not read; put the venue's mission file here instead",
            "\(folder)/folder.yaml:1:1: error: this is a folder, not a regular file: it is not read; put the venue's mission file here instead",
        ])
        // Read directly (it became a FIFO after the listing), it is refused at once, not waited on.
        let report = MissionFileReader(assetsDirectory: nil).read(fileAt: folder + "/fifo.yaml")
        #expect(report.problems.map(\.message) == ["this is a FIFO (named pipe), not a regular file: it is not read; put the venue's mission file here instead"])
    }

    @Test("Lists and mappings nested thousands deep are refused with their place, before the YAML reader could overflow its stack (found by the fuzzer)")
    func deepNesting() throws {
        let head = "id: deep\nname: Deep\nlanguages: [en]\ntimezone: Europe/London\ntheme: {color: \"#123456\"}\nmissions:\n"
        for body in [
            "  - " + String(repeating: "{a: ", count: 200_000),
            "  - " + String(repeating: "[", count: 200_000),
            (0..<2_000).map { String(repeating: " ", count: 2 + 2 * $0) + "k\($0):\n" }.joined(),
            // The third attack's texts: block lists on one line, which no bracket counts, and
            // brackets among quoted ones, which a count of characters took for closings.
            "  - " + String(repeating: "- ", count: 20_000) + "x\n",
            "  - " + String(repeating: "[\"]\", ", count: 20_000) + "x\n",
        ] {
            let report = MissionFileReader(assetsDirectory: nil).read(bytes: Data((head + body).utf8), path: "deep.yaml")
            #expect(report.venue == nil)
            let problem = try #require(report.problems.first)
            #expect(problem.message.hasPrefix("lists and mappings nest too deep"), "\(problem)")
            #expect(problem.line >= 7)
        }
        // The fuzzer's input and the attack's texts, kept with its seeds.
        for seed in ["fixed-deep-flow-nesting.yaml", "attack-deep-block-lists.yaml", "attack-quoted-brackets.yaml"] {
            let found = try Data(contentsOf: URL(fileURLWithPath: Fixtures.repository.path + "/Fuzz/Corpus/FuzzMissionFile/" + seed))
            let problem = MissionFileReader(assetsDirectory: nil).read(bytes: found, path: seed).problems.first
            #expect(problem?.message.hasPrefix("lists and mappings nest too deep") == true, "\(seed): \(String(describing: problem))")
        }
        // The editor's outline of the text never composes it either.
        #expect(MissionFileOutline.missionLines(head + "  - " + String(repeating: "- ", count: 20_000) + "x\n").isEmpty)
    }
}
