import Foundation
import NIOCore
import Testing

@testable import GroupieServer

@Suite("ZIP streams")
struct ZipStreamTests {
    /// Writes an archive and lets Python's zipfile list and check it.
    static func check(_ zip: inout ZipStream, entries: [(String, Data)]) throws -> String {
        var bytes = Data()
        for (name, data) in entries {
            let buffer = try zip.entry(name: zip.uniqueName(name), data: data, modified: Date(timeIntervalSince1970: 1_795_000_000), timeZone: TimeZone(identifier: "Europe/Stockholm")!)
            bytes.append(contentsOf: buffer.readableBytesView)
        }
        bytes.append(contentsOf: zip.finish().readableBytesView)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("zip-\(UUID().uuidString).zip").path
        try bytes.write(to: URL(fileURLWithPath: path))
        return try CollageRouteTests.python(["-c", """
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            assert z.testzip() is None
            for i in z.infolist():
                print(i.filename, i.file_size, i.date_time[:3], z.read(i).decode())
            """, path])
    }

    @Test("Entries are stored with UTF-8 names, CRCs and dates; repeated names get a number")
    func plain() throws {
        var zip = ZipStream()
        let listing = try Self.check(&zip, entries: [("01 Haj/Fota en haj - Åsa.jpg", Data("one".utf8)), ("01 Haj/Fota en haj - Åsa.jpg", Data("two".utf8)), ("مريم.jpg", Data())])
        #expect(listing == "01 Haj/Fota en haj - Åsa.jpg 3 (2026, 11, 18) one\n01 Haj/Fota en haj - Åsa (2).jpg 3 (2026, 11, 18) two\nمريم.jpg 0 (2026, 11, 18) \n")
    }

    @Test("Past 4 GiB the offsets go into ZIP64 records, which standard readers accept")
    func zip64() throws {
        var zip = ZipStream()
        zip.zip64From = 40
        let listing = try Self.check(&zip, entries: (0..<4).map { ("photo \($0).jpg", Data(String(repeating: "x", count: 50 + $0).utf8)) })
        #expect(listing.split(separator: "\n").count == 4)
        #expect(listing.contains("photo 3.jpg 53"))
    }

    @Test("Names lose separators, control and reserved characters, and keep joined emoji")
    func safeNames() {
        #expect(ZipStream.safeName("a/b\\c:d*e?f\"g<h>i|j") == "a_b_c_d_e_f_g_h_i_j")
        #expect(ZipStream.safeName(" ..hidden. ") == "hidden")
        #expect(ZipStream.safeName("") == "_")
        #expect(ZipStream.safeName("line\nbreak\u{202E}") == "line_break_")
        #expect(ZipStream.safeName("👩🏽‍🚀") == "👩🏽‍🚀")
        #expect(ZipStream.safeName(String(repeating: "a", count: 200)).count == 80)
        // A separator joined to a mark, or after a prepended character, is still a separator.
        #expect(!ZipStream.safeName("x\u{0D4E}/../\u{301}y").unicodeScalars.contains("/"))
        #expect(!ZipStream.safeName("a/\u{301}b").unicodeScalars.contains("/"))
    }

    @Test("A name of 65,535 bytes is written; one byte more is refused with an error, not a trap")
    func nameBoundary() throws {
        var zip = ZipStream()
        let longest = String(repeating: "n", count: ZipStream.maximumNameBytes - 4) + ".jpg"
        let listing = try Self.check(&zip, entries: [(longest, Data("x".utf8))])
        #expect(listing.hasPrefix(longest + " 1 "))
        var other = ZipStream()
        #expect(throws: ZipStream.TooLong(field: "name", length: UInt64(ZipStream.maximumNameBytes + 1))) {
            _ = try other.entry(name: longest + "x", data: Data(), modified: Date(), timeZone: .gmt)
        }
        // The refused entry left nothing behind: the archive is still sound.
        _ = try other.entry(name: "after.jpg", data: Data("y".utf8), modified: Date(), timeZone: .gmt)
        #expect(other.finish().readableBytes > 22)
    }

    @Test("A 65 KB name of one character with thousands of marks is cut to a safe file name")
    func markHeavyName() {
        let name = "a" + String(repeating: "\u{0301}", count: 32_761)
        let safe = ZipStream.safeName(name + " - photo")
        #expect(safe.utf8.count <= 240)
        #expect(!safe.isEmpty)
    }

    @Test("65,535 entries and more go into ZIP64 end records that standard readers accept")
    func manyEntries() throws {
        var zip = ZipStream()
        let listing = try Self.check(&zip, entries: (0..<65_536).map { ("\($0)", Data()) })
        #expect(listing.split(separator: "\n").count == 65_536)
    }
}
