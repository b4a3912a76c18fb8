import Foundation
import GroupieContent
import Testing

@Suite("Editing mission files")
struct MissionEditingTests {
    @Test("A write over the version opened replaces the file whole; over another version it writes nothing")
    func writeOverBase() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/zoo.yaml"
        try Data("one\n".utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        let opened = try #require(try MissionFileWriter.current(path))
        let writer = MissionFileWriter()
        #expect(try writer.write("two\n", to: path, over: opened.hash) == .saved(hash: MissionFileReaderHash.of("two\n")))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "two\n")
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) == 0o640, "the file keeps its permissions")
        // Saved again over the first version: refused, with the file as it is now.
        let refused = try writer.write("three\n", to: path, over: opened.hash)
        #expect(refused == .changedOnDisk(current: "two\n", hash: MissionFileReaderHash.of("two\n")))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "two\n")
        // A new file is written only where none is.
        #expect(try writer.write("new\n", to: folder + "/new.yaml", over: "") == .saved(hash: MissionFileReaderHash.of("new\n")))
        if case .saved = try writer.write("again\n", to: folder + "/new.yaml", over: "") { Issue.record("a file that exists was written over") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["new.yaml", "zoo.yaml"], "no temporary file left")
        // A link stays a link: the file it points to is written.
        try FileManager.default.createSymbolicLink(atPath: folder + "/linked.yaml", withDestinationPath: folder + "/zoo.yaml")
        #expect(try writer.write("linked\n", to: folder + "/linked.yaml", over: MissionFileReaderHash.of("two\n")) == .saved(hash: MissionFileReaderHash.of("linked\n")))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder + "/linked.yaml") == folder + "/zoo.yaml")
        #expect(try String(contentsOfFile: folder + "/zoo.yaml", encoding: .utf8) == "linked\n")
    }

    @Test("Versions are numbered, kept with who saved them, read back, and ids that are not venue ids are refused")
    func history() throws {
        let folder = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let history = MissionHistory(directory: folder + "/mission-history")
        let first = try history.record(venueId: "zoo", text: "a\n", staffEmail: nil, at: Date(timeIntervalSince1970: 1), note: "as found on disk")
        let second = try history.record(venueId: "zoo", text: "b\n", staffEmail: "eva@zoo.example", at: Date(timeIntervalSince1970: 2), note: nil)
        #expect((first.number, second.number) == (1, 2))
        #expect(try history.versions(venueId: "zoo").map(\.number) == [2, 1])
        #expect(try history.versions(venueId: "zoo").first?.staffEmail == "eva@zoo.example")
        #expect(try history.text(venueId: "zoo", number: 1) == "a\n")
        #expect(try history.text(venueId: "zoo", number: 3) == nil)
        #expect(try history.text(venueId: "../zoo", number: 1) == nil)
        #expect(throws: (any Error).self) { try history.record(venueId: "../etc", text: "x", staffEmail: nil, at: Date(), note: nil) }
    }

    @Test("The differences between two texts: lines removed and added, with their numbers")
    func diff() {
        let lines = LineDiff.lines(from: "a\nb\nc\nd", to: "a\nB\nc\nd\ne")
        #expect(lines.map(\.kind) == [.same, .removed, .added, .same, .same, .added])
        #expect(lines[1] == .init(kind: .removed, text: "b", old: 2, new: nil))
        #expect(lines[2] == .init(kind: .added, text: "B", old: nil, new: 2))
        #expect(lines.last == .init(kind: .added, text: "e", old: nil, new: 5))
        #expect(LineDiff.lines(from: "same", to: "same").allSatisfy { $0.kind == .same })
        #expect(LineDiff.lines(from: "same", to: "same").count == 1)
    }

    @Test("A diff shows each change with three lines around it, and counts the unchanged lines between")
    func diffContext() {
        let old = (1...20).map { "line \($0)" }, new = old.enumerated().map { $0.offset == 9 ? "LINE 10" : $0.element }
        let rows = LineDiff.rows(from: old.joined(separator: "\n"), to: new.joined(separator: "\n"))
        #expect(rows.count == 10, "\(rows)")
        #expect(rows.first == .unchanged(6) && rows.last == .unchanged(7))
        #expect(rows[1] == .line(.init(kind: .same, text: "line 7", old: 7, new: 7)))
        #expect(rows[4] == .line(.init(kind: .removed, text: "line 10", old: 10, new: nil)))
        #expect(rows[5] == .line(.init(kind: .added, text: "LINE 10", old: nil, new: 10)))
        #expect(rows[8] == .line(.init(kind: .same, text: "line 13", old: 13, new: 13)))
        // Two changes closer than twice the context share their unchanged lines.
        let twice = old.enumerated().map { [4, 9].contains($0.offset) ? $0.element.uppercased() : $0.element }
        let close = LineDiff.rows(from: old.joined(separator: "\n"), to: twice.joined(separator: "\n"))
        #expect(!close.dropFirst().dropLast().contains { if case .unchanged = $0 { true } else { false } }, "\(close)")
    }

    @Test("Two versions of a million lines each: the first 2,000 changed lines and how many more, without the whole table")
    func diffBounded() {
        let old = (0..<1_000_000).map { "old \($0)" }.joined(separator: "\n")
        let new = "kept\n" + (0..<1_000_000).map { "new \($0)" }.joined(separator: "\n") + "\nkept"
        let rows = LineDiff.rows(from: old, to: new, context: 3, limit: 2_000)
        let changed = rows.filter { if case .line(let line) = $0 { line.kind != .same } else { false } }
        #expect(changed.count == 2_000)
        #expect(rows.last == .moreChanges(2_000_000 + 2 - 2_000), "\(String(describing: rows.last))")
        #expect(rows.count < 2_010)
    }

    @Test("The mission at a line is the one whose entry holds it")
    func missionAtLine() throws {
        let text = try String(contentsOfFile: Fixtures.missions + "/science-centre.yaml", encoding: .utf8)
        let lines = MissionFileOutline.missionLines(text)
        #expect(lines.first?.id == "shark-tunnel" && lines.first?.line == 27)
        #expect(MissionFileOutline.mission(at: 1, in: text) == nil)
        #expect(MissionFileOutline.mission(at: 45, in: text) == "shark-tunnel")
        #expect(MissionFileOutline.mission(at: lines[1].line, in: text) == lines[1].id)
    }
}

/// The hash the writer and the reader give a text.
enum MissionFileReaderHash {
    static func of(_ text: String) -> String {
        MissionFileReader(assetsDirectory: nil).read(bytes: Data(text.utf8), path: "/x/x.yaml").contentHash
    }
}

@Suite("The versions of a mission file")
struct MissionHistoryTests {
    @Test("A text the newest version has is not kept again; past the bounds the oldest go, from the index and the folder, and are counted")
    func boundsAndRepeats() throws {
        let data = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let history = MissionHistory(directory: data + "/mission-history")
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        let first = try history.record(venueId: "v", text: "a: 1\n", staffEmail: "ada@museum.example", at: at, note: nil)
        let again = try history.record(venueId: "v", text: "a: 1\n", staffEmail: "bo@museum.example", at: at, note: nil)
        #expect(try again == first && history.versions(venueId: "v").count == 1, "a save that changes nothing keeps no version")
        for number in 2...(MissionHistory.keptVersions + 5) {
            try history.record(venueId: "v", text: "a: \(number)\n", staffEmail: nil, at: at, note: nil)
        }
        let kept = try history.versions(venueId: "v")
        #expect(kept.count == MissionHistory.keptVersions)
        #expect(kept.first?.number == MissionHistory.keptVersions + 5 && kept.last?.number == 6)
        #expect(try history.pruned(venueId: "v") == 5)
        #expect(try history.text(venueId: "v", number: 5) == nil, "a removed version's text is gone")
        #expect(try history.text(venueId: "v", number: 6) == "a: 6\n")
        let files = try FileManager.default.contentsOfDirectory(atPath: data + "/mission-history/v").filter { $0.hasSuffix(".yaml") }
        #expect(files.count == MissionHistory.keptVersions)

        // Bytes bound too: two large texts, and the newest two always stay.
        let large = String(repeating: "x", count: MissionHistory.keptBytes / 2 + 1)
        try history.record(venueId: "v", text: "a: " + large, staffEmail: nil, at: at, note: nil)
        try history.record(venueId: "v", text: "b: " + large, staffEmail: nil, at: at, note: nil)
        #expect(try history.versions(venueId: "v").count == 2)
        #expect(try history.versions(venueId: "v").reduce(0) { $0 + $1.bytes } > MissionHistory.keptBytes)
    }
}
