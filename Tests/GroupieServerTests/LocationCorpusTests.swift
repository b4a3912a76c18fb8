import Foundation
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GroupieServer

/// Every carrier of location in `Tests/Fixtures/Location/` (made with exiftool by
/// `scripts/location-corpus`) is uploaded, and what is served, alone and in `album.zip`, is
/// read back with `exiftool -a -G1`: no location tag, no metadata but the orientation, and
/// nothing after the end of the image.
@Suite("No location served")
struct LocationCorpusTests {
    struct Sample: Decodable, Sendable, CustomStringConvertible {
        var file: String
        var format: String
        var location_tags: [String]
        var orientation: Int
        /// False where the location sits after the end of the image, which exiftool does not read.
        var exiftool_sees: Bool
        var description: String { file }
    }

    static let folder = TestServer.repository.appendingPathComponent("Tests/Fixtures/Location")

    static let samples: [Sample] = {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("manifest.json")) else { return [] }
        return (try? JSONDecoder().decode([Sample].self, from: data)) ?? []
    }()

    /// Tag groups exiftool reports about the file itself or the coded image, never about
    /// where or by whom it was taken.
    static let structuralGroups: Set<String> = ["ExifTool", "System", "File", "Composite", "ICC_Profile", "ICC-header", "ICC-view", "ICC-meas", "RIFF", "JFIF"]
    /// PNG header and colour chunks, which the allow-list keeps.
    static let structuralPNGTags: Set<String> = [
        "ImageWidth", "ImageHeight", "BitDepth", "ColorType", "Compression", "Filter", "Interlace",
        "SRGBRendering", "Gamma", "WhitePointX", "WhitePointY", "RedX", "RedY", "GreenX", "GreenY", "BlueX", "BlueY",
        "Palette", "Transparency", "SignificantBits", "ProfileName", "ProfileCMMType",
    ]

    /// What exiftool reads from `path`, as `Group:Tag` names.
    static func tags(_ path: String) throws -> [String: String] {
        let output = Data(try ChildProcess.run("/usr/bin/exiftool", ["-a", "-G1", "-s", "-j", "-ee", path]).output.utf8)
        let objects = try #require(try JSONSerialization.jsonObject(with: output) as? [[String: Any]])
        return (objects.first ?? [:]).reduce(into: [:]) { $0[$1.key] = "\($1.value)" }
    }

    /// Tags of `path` that the allow-list does not account for.
    static func unexpectedTags(_ path: String) throws -> [String] {
        try tags(path).compactMap { name, value in
            let parts = name.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { return nil }
            let (group, tag) = (parts[0], parts[1])
            if structuralGroups.contains(group) || group.hasPrefix("ICC") { return nil }
            if group == "PNG", structuralPNGTags.contains(tag) { return nil }
            if ["VP8", "VP8L", "VP8X", "RIFF"].contains(group) { return nil }
            if group == "IFD0", ["Orientation"].contains(tag) { return nil }
            // Warnings about the structure are exiftool's, not metadata.
            if tag == "Warning" { return nil }
            return "\(name): \(value)"
        }
    }

    static func checkServed(_ data: Data, sample: Sample, where label: String) throws {
        let ext = sample.format == "jpeg" ? "jpg" : sample.format
        let path = try TestImages.write([UInt8](data), ext: ext)
        let found = try tags(path)
        for tag in sample.location_tags {
            #expect(found[tag] == nil, "\(label) of \(sample.file) still has \(tag)")
        }
        let unexpected = try unexpectedTags(path)
        #expect(unexpected.isEmpty, "\(label) of \(sample.file) has \(unexpected)")
        let orientation = found["IFD0:Orientation"]
        if sample.orientation == 1 {
            #expect(orientation == nil || orientation == "Horizontal (normal)", "\(label) of \(sample.file)")
        } else {
            #expect(orientation != nil, "\(label) of \(sample.file) lost its orientation")
        }
        // Nothing after the end of the image: the served file ends with its end marker.
        let bytes = [UInt8](data)
        switch sample.format {
        case "jpeg": #expect(bytes.suffix(2) == [0xFF, 0xD9], "\(label) of \(sample.file) ends after the image")
        case "png": #expect(Array(bytes.suffix(8).prefix(4)) == Array("IEND".utf8), "\(label) of \(sample.file) ends after IEND")
        default: #expect(bytes.count == 8 + Int(bytes[4]) + Int(bytes[5]) << 8 + Int(bytes[6]) << 16 + Int(bytes[7]) << 24)
        }
        if !sample.exiftool_sees {
            // exiftool cannot tell whether the appended part is still there: read the bytes.
            let input = [UInt8](try Data(contentsOf: folder.appendingPathComponent(sample.file)))
            let (clean, _) = try #require(appendedSplit(input, format: sample.format), "\(sample.file) has no appended part")
            #expect(occurrences(of: [0xFF, 0xD8, 0xFF], in: bytes) == (sample.format == "jpeg" ? 1 : 0), "\(label) of \(sample.file) holds a second JPEG")
            #expect(occurrences(of: [0xFF, 0xD9], in: bytes) == (sample.format == "jpeg" ? 1 : 0), "\(label) of \(sample.file) has a second end marker")
            #expect(occurrences(of: Array("IEND".utf8), in: bytes) == (sample.format == "png" ? 1 : 0), "\(label) of \(sample.file)")
            #expect(occurrences(of: Array("Exif".utf8), in: bytes) == 0, "\(label) of \(sample.file) carries Exif")
            #expect(bytes.count <= clean.count, "\(label) of \(sample.file) is \(bytes.count) bytes, the clean image \(clean.count)")
        }
        // And it is still the photo.
        let size = try TestImages.header(path)
        #expect(size == (96, 64) || size == (64, 96), "\(label) of \(sample.file) is \(size)")
    }

    /// How often `needle` occurs in `bytes`.
    static func occurrences(of needle: [UInt8], in bytes: [UInt8]) -> Int {
        guard bytes.count >= needle.count else { return 0 }
        return (0...(bytes.count - needle.count)).filter { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }.count
    }

    /// The clean image and what follows its end, for the samples that append a second image.
    static func appendedSplit(_ bytes: [UInt8], format: String) -> (clean: [UInt8], appended: [UInt8])? {
        let end: [UInt8] = format == "jpeg" ? [0xFF, 0xD9, 0xFF, 0xD8] : Array("IEND".utf8)
        let skip = format == "jpeg" ? 2 : 8  // the end marker, or IEND and its CRC
        guard bytes.count >= end.count,
            let start = (0...(bytes.count - end.count)).first(where: { bytes[$0..<($0 + end.count)].elementsEqual(end) }),
            start + skip < bytes.count
        else { return nil }
        return (Array(bytes[..<(start + skip)]), Array(bytes[(start + skip)...]))
    }

    @Test("The corpus is there: every carrier has its sample, and each sample carries its location")
    func corpus() throws {
        #expect(Self.samples.count >= 14)
        #expect(Self.samples.contains { !$0.exiftool_sees })
        for sample in Self.samples {
            var path = Self.folder.appendingPathComponent(sample.file).path
            if !sample.exiftool_sees {
                // The location is in the image appended after the end; exiftool reads that part alone.
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
                let (_, appended) = try #require(Self.appendedSplit(bytes, format: sample.format), "\(sample.file) has nothing appended")
                path = try TestImages.write(appended, ext: "jpg")
                #expect(try Self.tags(Self.folder.appendingPathComponent(sample.file).path).keys.allSatisfy { !sample.location_tags.contains($0) })
            }
            let found = try Self.tags(path)
            for tag in sample.location_tags {
                #expect(found[tag] != nil, "\(sample.file) does not carry \(tag)")
            }
        }
    }

    @Test("Served originals carry no location, whatever the carrier", arguments: samples)
    func served(_ sample: Sample) async throws {
        let server = try HardeningTests.server()
        let path = Self.folder.appendingPathComponent(sample.file).path
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let (response, body) = try await PhotoRouteTests.upload(client, path, as: ada, group: group.id)
            #expect(response.status == .created, "\(sample.file): \(body)")
            let id = try #require((body["photo"] as? [String: Any])?["id"] as? String)
            let (status, original) = try await PhotoRouteTests.bytes(client, "/api/v1/photos/\(id)/original", headers: ada.auth)
            #expect(status == .ok)
            try Self.checkServed(original, sample: sample, where: "the original")

            let token = try await EventTests.streamToken(client, group: group.id, player: ada)
            let (zipStatus, zip) = try await PhotoRouteTests.bytes(client, "/api/v1/groups/\(group.id)/album.zip?token=\(token)")
            #expect(zipStatus == .ok)
            let zipPath = try TestImages.write([UInt8](zip), ext: "zip")
            let entries = try CollageRouteTests.python(["-c", """
                import sys, zipfile, os
                z = zipfile.ZipFile(sys.argv[1])
                for i, info in enumerate(z.infolist()):
                    out = sys.argv[1] + f".{i}"
                    open(out, "wb").write(z.read(info))
                    print(out)
                """, zipPath]).split(separator: "\n").map(String.init)
            #expect(entries.count == 1)
            for entry in entries {
                try Self.checkServed(try Data(contentsOf: URL(fileURLWithPath: entry)), sample: sample, where: "album.zip")
            }
        }
    }
}
