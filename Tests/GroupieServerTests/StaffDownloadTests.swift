import Foundation
import GroupieCore
import GroupieStorage
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GroupieServer

@Suite("Photos out, for staff")
struct StaffDownloadTests {
    static func server() throws -> TestServer {
        let server = try CollageRouteTests.server()
        try server.write("museum.yaml", TestServer.aquarium(id: "museum"))
        return server
    }

    /// The ZIP's entries, each written to a file of its own: (name in the archive, path).
    static func entries(_ zip: Data) throws -> [(name: String, path: String)] {
        let path = try TestImages.write([UInt8](zip), ext: "zip")
        return try CollageRouteTests.python(["-c", """
            import sys, zipfile
            z = zipfile.ZipFile(sys.argv[1])
            assert z.testzip() is None
            for i, info in enumerate(z.infolist()):
                out = sys.argv[1] + f".{i}.jpg"
                open(out, "wb").write(z.read(info))
                print(info.filename + "\\t" + out)
            """, path]).split(separator: "\n").map { line in
            let parts = line.split(separator: "\t").map(String.init)
            return (parts[0], parts[1])
        }
    }

    /// What any entry carries beyond the allow-list of served photos (`LocationCorpusTests`):
    /// location in any of the corpus's carriers, or any other metadata, by exiftool's reading.
    static func locationTags(_ entries: [(name: String, path: String)]) throws -> [String] {
        let carriers = Set(LocationCorpusTests.samples.flatMap(\.location_tags))
        return try entries.flatMap { entry in
            let tags = try LocationCorpusTests.tags(entry.path).keys.filter(carriers.contains)
            return (tags + (try LocationCorpusTests.unexpectedTags(entry.path))).map { "\(entry.name): \($0)" }
        }
    }

    @Test("A group's, a class's and a day's photos and collages as one ZIP, without location in any file of any carrier, each download in the audit log")
    func downloads() async throws {
        let server = try Self.server()
        try await StaffConsoleTests.addStaff(server, "mod@aquarium.example", .moderator, venues: ["aquarium"])
        let located = TestServer.repository.appendingPathComponent("Tests/Fixtures/Location/jpeg-exif-gps.jpg").path
        let xmp = TestServer.repository.appendingPathComponent("Tests/Fixtures/Location/jpeg-xmp-location.jpg").path
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo"), cy = try await client.newPlayer("Cy")
            let di = try await client.newPlayer("Di")
            let group = try await client.newGroup(by: ada), other = try await client.newGroup(by: bo)
            let museum = try await client.newGroup(by: di, venue: "museum")
            _ = try await CollageRouteTests.completeReef(client, as: ada, group: group.id)
            #expect(try await PhotoRouteTests.upload(client, located, as: ada, group: group.id, query: "?mission=sharks&task=shark").0.status == .created)
            #expect(try await PhotoRouteTests.upload(client, xmp, as: bo, group: other.id).0.status == .created)
            #expect(try await PhotoRouteTests.upload(client, located, as: di, group: museum.id).0.status == .created)
            // Every carrier of location the corpus has, in a group of the day.
            let eve = try await client.newPlayer("Eve")
            let corpus = try await client.newGroup(by: eve)
            for sample in LocationCorpusTests.samples {
                let path = LocationCorpusTests.folder.appendingPathComponent(sample.file).path
                #expect(try await PhotoRouteTests.upload(client, path, as: eve, group: corpus.id).0.status == .created, "\(sample.file)")
            }
            #expect(try await ReloadTests.eventually {
                let (_, album) = try await client.send(.get, "/api/v1/groups/\(group.id)/photos", headers: ada.auth)
                return (album["collages"] as? [Any])?.count == 2
            } != nil)

            let browser = try #require(try await StaffConsoleTests.signIn(client, "mod@aquarium.example").1)
            // Later than the groups above, as a class comes after the first visitors.
            server.clock.advance(by: 600)
            // A class: two table cards, one of whose groups plays.
            #expect(try await browser.post(client, "/staff/venues/aquarium/cards", ["name": "Table", "count": "2"]).status == .ok)
            let now = server.clock.now
            let batches = try await server.database().groupBatches(venueId: "aquarium", createdFrom: now.addingTimeInterval(-3600), before: now.addingTimeInterval(60))
            #expect(batches.count == 1 && batches.first?.groups.count == 2)
            let batch = try #require(batches.first).id
            let table = try #require(batches.first?.groups.first { $0.name == "Table 1" })
            _ = try await client.join(table.joinCode.value, as: cy)
            #expect(try await PhotoRouteTests.upload(client, located, as: cy, group: table.id).0.status == .created)

            let (status, zip) = try await PhotoRouteTests.bytes(client, "/staff/groups/\(group.id)/photos.zip", headers: browser.headers)
            #expect(status == .ok)
            let entries = try Self.entries(zip)
            let folder = "Group \(group.code)"
            // In the venue's own language, as the album's plan names them.
            #expect(Set(entries.map(\.name)) == [
                "\(folder)/01 Hajar/Fota en haj - Ada.jpg", "\(folder)/01 Hajar/Hajar - collage.jpg",
                "\(folder)/03 Revet/Något rött - Ada.jpg", "\(folder)/03 Revet/Något grönt - Ada.jpg",
                "\(folder)/03 Revet/Något blått - Ada.jpg", "\(folder)/03 Revet/Revet - collage.jpg",
            ])
            #expect(try Self.locationTags(entries).isEmpty)

            var stockholm = Calendar(identifier: .gregorian)
            stockholm.timeZone = try #require(TimeZone(identifier: "Europe/Stockholm"))
            let today = stockholm.dateComponents([.year, .month, .day], from: server.clock.now)
            let day = String(format: "%04d-%02d-%02d", today.year ?? 0, today.month ?? 0, today.day ?? 0)
            let (dayStatus, dayZip) = try await PhotoRouteTests.bytes(client, "/staff/venues/aquarium/photos.zip?day=\(day)", headers: browser.headers)
            #expect(dayStatus == .ok)
            let dayEntries = try Self.entries(dayZip)
            #expect(
                Set(dayEntries.map { String($0.name.prefix { $0 != "/" }) }) == [folder, "Group \(other.code)", "Group \(corpus.code)", "Table 1"],
                "the venue's groups of the day, no other venue's"
            )
            #expect(dayEntries.count == 8 + LocationCorpusTests.samples.count)
            #expect(try Self.locationTags(dayEntries).isEmpty)

            let (batchStatus, batchZip) = try await PhotoRouteTests.bytes(client, "/staff/venues/aquarium/photos.zip?batch=\(batch)", headers: browser.headers)
            #expect(batchStatus == .ok)
            #expect(try Self.entries(batchZip).map(\.name) == ["Table 1/Andra foton/photo - Cy.jpg"], "the folder named in the venue's language")

            let (_, wall) = try await browser.page(client, "/staff/venues/aquarium/wall?batch=\(batch)")
            #expect(wall.contains("/staff/venues/aquarium/photos.zip?batch=\(batch)"), "the wall of a class links its download")

            let log = try await server.database().auditLog(venueIds: nil, staffEmail: "", limit: 20).filter { $0.action == "photos downloaded" }
            #expect(Set(log.map { $0.subject ?? "" }) == ["class Table 1 to Table 2", "day \(day)", "group \(folder)"] && log.count == 3, "\(log)")
            #expect(log.allSatisfy { $0.staffEmail == "mod@aquarium.example" && $0.venueId == "aquarium" })
        }
    }

    @Test("A photo staff hid is in no ZIP; a day's ZIP holds the groups begun between the venue's midnights, not UTC's")
    func hiddenAndDay() async throws {
        let server = try Self.server()
        try await StaffConsoleTests.addStaff(server, "mod@aquarium.example", .moderator, venues: ["aquarium"])
        let photo = TestServer.repository.appendingPathComponent("Tests/Fixtures/Location/jpeg-exif-gps.jpg").path
        // The clock starts at 08:00 UTC on 15 January, 09:00 in Stockholm (the aquarium's zone):
        // 22:59 UTC is 23:59 there, and 23:01 UTC is 00:01 on the 16th, though UTC's 15th still.
        server.clock.advance(by: 14 * 3600 + 59 * 60)
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo"), cy = try await client.newPlayer("Cy")
            let late = try await client.newGroup(by: ada)
            _ = try await client.join(late.code, as: bo)
            #expect(try await PhotoRouteTests.upload(client, photo, as: ada, group: late.id).0.status == .created)
            let (added, answer) = try await PhotoRouteTests.upload(client, photo, as: bo, group: late.id)
            #expect(added.status == .created)
            let hiddenId = try #require((answer["photo"] as? [String: Any])?["id"] as? String)
            server.clock.advance(by: 120)
            let next = try await client.newGroup(by: cy)
            #expect(try await PhotoRouteTests.upload(client, photo, as: cy, group: next.id).0.status == .created)

            let browser = try #require(try await StaffConsoleTests.signIn(client, "mod@aquarium.example").1)
            #expect(try await browser.post(client, "/staff/photos/\(hiddenId)/hide", ["reason": "A face"]).status == .seeOther)

            let (status, zip) = try await PhotoRouteTests.bytes(client, "/staff/groups/\(late.id)/photos.zip", headers: browser.headers)
            #expect(status == .ok)
            #expect(try Self.entries(zip).map(\.name) == ["Group \(late.code)/Andra foton/photo - Ada.jpg"], "Bo's hidden photo is left out")
            for (day, names) in [
                ("2027-01-15", ["Group \(late.code)/Andra foton/photo - Ada.jpg"]), ("2027-01-16", ["Group \(next.code)/Andra foton/photo - Cy.jpg"]),
            ] {
                let (dayStatus, dayZip) = try await PhotoRouteTests.bytes(client, "/staff/venues/aquarium/photos.zip?day=\(day)", headers: browser.headers)
                #expect(dayStatus == .ok)
                #expect(try Self.entries(dayZip).map(\.name) == names, "\(day)")
            }
        }
    }

    @Test("Viewers, staff of another venue and visitors get no ZIP, and no line is written")
    func refused() async throws {
        let server = try Self.server()
        try await StaffConsoleTests.addStaff(server, "viewer@aquarium.example", .viewer, venues: ["aquarium"])
        try await StaffConsoleTests.addStaff(server, "mod@museum.example", .moderator, venues: ["museum"])
        try await StaffConsoleTests.addStaff(server, "mod@aquarium.example", .moderator, venues: ["aquarium"])
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let viewer = try #require(try await StaffConsoleTests.signIn(client, "viewer@aquarium.example").1)
            #expect(try await PhotoRouteTests.bytes(client, "/staff/groups/\(group.id)/photos.zip", headers: viewer.headers).0 == .forbidden)
            #expect(try await PhotoRouteTests.bytes(client, "/staff/venues/aquarium/photos.zip?day=2026-01-01", headers: viewer.headers).0 == .forbidden)
            let other = try #require(try await StaffConsoleTests.signIn(client, "mod@museum.example").1)
            #expect(try await PhotoRouteTests.bytes(client, "/staff/groups/\(group.id)/photos.zip", headers: other.headers).0 == .notFound)
            #expect(try await PhotoRouteTests.bytes(client, "/staff/venues/aquarium/photos.zip?day=2026-01-01", headers: other.headers).0 == .notFound)
            // A visitor's token is no staff session: sent to sign in, as any page without one.
            let (visitor, location) = try await client.execute(uri: "/staff/groups/\(group.id)/photos.zip", method: .get, headers: ada.auth) {
                ($0.status, $0.headers[.location])
            }
            #expect(visitor == .seeOther && location?.hasPrefix("/staff/login") == true, "\(visitor) \(location ?? "")")
            let moderator = try #require(try await StaffConsoleTests.signIn(client, "mod@aquarium.example").1)
            #expect(try await PhotoRouteTests.bytes(client, "/staff/venues/aquarium/photos.zip?day=2026-02-30", headers: moderator.headers).0 == .unprocessableContent)
            #expect(try await PhotoRouteTests.bytes(client, "/staff/venues/aquarium/photos.zip?batch=12.000", headers: moderator.headers).0 == .notFound)
            #expect(try await server.database().auditLog(venueIds: nil, staffEmail: "", limit: 20).filter { $0.action == "photos downloaded" }.isEmpty)
        }
    }
}
