import Foundation
import NIOCore
import Testing

@testable import GroupieServer

@Suite("ZIP streams")
struct ZipStreamTests {
    /// The archive's bytes.
    static func archive(_ zip: inout ZipStream, entries: [(String, Data)]) throws -> Data {
        var bytes = Data()
        for (name, data) in entries {
            let buffer = try zip.entry(name: zip.uniqueName(name), data: data, modified: Date(timeIntervalSince1970: 1_795_000_000), timeZone: TimeZone(identifier: "Europe/Stockholm")!)
            bytes.append(contentsOf: buffer.readableBytesView)
        }
        bytes.append(contentsOf: zip.finish().readableBytesView)
        return bytes
    }

    /// Writes an archive and lets Python's zipfile list and check it.
    static func check(_ zip: inout ZipStream, entries: [(String, Data)]) throws -> String {
        try check(archive: try archive(&zip, entries: entries))
    }

    static func check(archive bytes: Data) throws -> String {
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
        let bytes = try Self.archive(&zip, entries: (0..<4).map { ("photo \($0).jpg", Data(String(repeating: "x", count: 50 + $0).utf8)) })
        let listing = try Self.check(archive: bytes)
        #expect(listing.split(separator: "\n").count == 4)
        #expect(listing.contains("photo 3.jpg 53"))
        // Python's zipfile reads an archive whatever its end records say: read them by hand.
        let records = try ZipRecords(bytes)
        try #require(records.entries.count == 4)
        #expect(records.zip64EndCount == 4)
        #expect(records.endCount == 0xFFFF)
        // Each entry is a 30-byte header, an 11-byte name and 50 + i bytes: entry 0 starts at 0,
        // below zip64From, and the others at 91, 183 and 276, past it, in the ZIP64 extra field.
        #expect(records.entries.map(\.zip64Offset) == [nil, 91, 183, 276])
        #expect(records.entries.dropFirst().allSatisfy { $0.offset32 == 0xFFFF_FFFF })
        #expect(records.entries[0].offset32 == 0)
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
        let bytes = try Self.archive(&zip, entries: (0..<65_536).map { ("\($0)", Data()) })
        let listing = try Self.check(archive: bytes)
        #expect(listing.split(separator: "\n").count == 65_536)
        let records = try ZipRecords(bytes)
        #expect(records.zip64EndCount == 65_536)
        #expect(records.endCount == 0xFFFF)
        #expect(records.entries.count == 65_536)
        // Offsets are small: no entry needs the ZIP64 extra field.
        #expect(records.entries.allSatisfy { $0.zip64Offset == nil })
    }
}

/// An archive's end records and central directory, read byte by byte.
struct ZipRecords {
    struct Entry {
        var offset32: UInt32
        var zip64Offset: UInt64?
        /// Where the entry's local header is, by the directory's own word.
        var offset: UInt64 { zip64Offset ?? UInt64(offset32) }
    }

    var endCount: UInt16
    var zip64EndCount: UInt64?
    var entries: [Entry] = []

    struct Malformed: Error, CustomStringConvertible { var description: String }

    init(_ data: Data) throws {
        let bytes = [UInt8](data)
        // Every read is checked: a broken archive is a failed test, not a crashed one.
        func value(_ at: Int, _ count: Int) throws -> UInt64 {
            guard at >= 0, at + count <= bytes.count else { throw Malformed(description: "a read of \(count) bytes at \(at) is past the end") }
            return (0..<count).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * $1) }
        }
        func u16(_ at: Int) throws -> Int { Int(try value(at, 2)) }
        func u32(_ at: Int) throws -> UInt32 { UInt32(try value(at, 4)) }
        func u64(_ at: Int) throws -> UInt64 { try value(at, 8) }
        let end = bytes.count - 22
        guard try u32(end) == 0x0605_4B50 else { throw Malformed(description: "no end record at the end") }
        endCount = UInt16(try u16(end + 10))
        var directoryStart = Int(try u32(end + 16))
        var count = Int(endCount)
        if end >= 20, try u32(end - 20) == 0x0706_4B50 {
            let record = Int(clamping: try u64(end - 20 + 8))
            guard try u32(record) == 0x0606_4B50 else { throw Malformed(description: "the ZIP64 locator points to no ZIP64 end record") }
            zip64EndCount = try u64(record + 32)
            count = Int(clamping: try u64(record + 32))
            directoryStart = Int(clamping: try u64(record + 48))
        }
        var at = directoryStart
        for _ in 0..<count {
            guard try u32(at) == 0x0201_4B50 else { throw Malformed(description: "no directory entry at \(at)") }
            let nameLength = try u16(at + 28), extraLength = try u16(at + 30), commentLength = try u16(at + 32)
            let offset32 = try u32(at + 42)
            var zip64Offset: UInt64?
            var extra = at + 46 + nameLength
            while extra < at + 46 + nameLength + extraLength {
                if try u16(extra) == 0x0001, try u16(extra + 2) == 8 { zip64Offset = try u64(extra + 4) }
                extra += 4 + (try u16(extra + 2))
            }
            let offset = zip64Offset ?? UInt64(offset32)
            guard offset < UInt64(bytes.count), try u32(Int(offset)) == 0x0403_4B50 else { throw Malformed(description: "entry points to \(offset), no local header there") }
            entries.append(Entry(offset32: offset32, zip64Offset: zip64Offset))
            at += 46 + nameLength + extraLength + commentLength
        }
    }
}
