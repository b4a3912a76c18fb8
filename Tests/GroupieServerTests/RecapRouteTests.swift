import Foundation
import GroupieImaging
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GroupieServer

@Suite("The group's recap")
struct RecapRouteTests {
    /// The output of a poppler tool (`pdfimages`, `pdfinfo`, `pdftotext`) run on `arguments`.
    static func poppler(_ tool: String, _ arguments: [String]) throws -> String {
        let result = try ChildProcess.run("/usr/bin/" + tool, arguments)
        guard result.status == 0 else { throw TestFailure("\(tool) failed: \(result.output)") }
        return result.output
    }

    /// The rows of `pdfimages -list` after its two header lines: one per image in the file.
    static func images(inPDF path: String) throws -> [String] {
        try poppler("pdfimages", ["-list", path]).split(separator: "\n").dropFirst(2).map(String.init)
    }

    /// The images of a PDF, as `pdfimages -png` writes them out, in order.
    static func extractedImages(_ pdf: String) throws -> [Data] {
        let prefix = TestImages.folder + "/images-\(UUID().uuidString)"
        _ = try poppler("pdfimages", ["-png", pdf, prefix])
        let folder = (prefix as NSString).deletingLastPathComponent, stem = (prefix as NSString).lastPathComponent
        return try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(stem) }.sorted()
            .map { try Data(contentsOf: URL(fileURLWithPath: folder + "/" + $0)) }
    }

    static func visitEnd(_ client: some TestClientProtocol, group: String, as player: TestPlayer) async throws -> String? {
        try await CollageRouteTests.document(client, group: group, as: player)["visitEnd"] as? String
    }

    @Test("The recap PDF is printed pages holding every collage once, each chapter from the top of a page, with the facts, who did what and page numbers; the PNG decodes; the visit ends when every mission is done")
    func recap() async throws {
        let server = try CollageRouteTests.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo"), eve = try await client.newPlayer("Eve")
            let group = try await client.newGroup(by: ada)
            _ = try await client.join(group.code, as: bo)
            let shark = try TestImages.solid(width: 800, height: 600, rgb: (30, 30, 200), ext: "jpg")
            let (uploaded, _) = try await PhotoRouteTests.upload(client, shark, as: ada, group: group.id, query: "?mission=sharks&task=shark")
            #expect(uploaded.status == .created)
            _ = try await CollageRouteTests.completeReef(client, as: bo, group: group.id)
            #expect(try await Self.visitEnd(client, group: group.id, as: ada) == nil, "the rays are still open")
            #expect(try await CollageRouteTests.document(client, group: group.id, as: ada)["standing"] == nil, "a venue without points")

            // Strangers and the signed-out get nothing.
            var (status, body) = try await PhotoRouteTests.bytes(client, "/api/v1/groups/\(group.id)/recap.pdf", headers: eve.auth)
            #expect(status == .notFound)
            (status, _) = try await PhotoRouteTests.bytes(client, "/api/v1/groups/\(group.id)/recap.pdf")
            #expect(status == .unauthorized)

            let response = try await client.execute(uri: "/api/v1/groups/\(group.id)/recap.pdf?download=1&lang=en", method: .get, headers: ada.auth) { $0 }
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/pdf")
            #expect(response.headers[HTTPField.Name("Content-Disposition")!]?.hasPrefix("attachment;") == true)
            body = Data(buffer: response.body)
            #expect(body.starts(with: Array("%PDF".utf8)))
            let pdf = TestImages.folder + "/recap-\(UUID().uuidString).pdf"
            try body.write(to: URL(fileURLWithPath: pdf))
            // Printed pages of the venue's paper (A4 by default), each chapter from the top of one.
            let info = try Self.poppler("pdfinfo", [pdf]).split(separator: "\n")
            let pages = try #require(info.first { $0.hasPrefix("Pages:") }.flatMap { Int($0.split(separator: " ").last ?? "") })
            #expect(pages >= 2, "\(info)")
            #expect(info.contains { $0.hasPrefix("Page size:") && $0.contains("595.276 x 841.89") }, "\(info)")
            // The two completed missions' collages (sharks, then the reef), each once and on a
            // page of its own; the rays have none.
            let images = try Self.images(inPDF: pdf)
            #expect(images.count == 2, "\(images)")
            #expect(images.compactMap { Int($0.split(separator: " ").first ?? "") } == [1, 2], "\(images)")
            let text = try Self.poppler("pdftotext", ["-layout", pdf, "-"])
            for page in 1...pages { #expect(text.replacingOccurrences(of: " ", with: "").contains("\(page)/\(pages)"), "page \(page)'s number") }
            for expected in ["Sharks", "The reef", "Sharks have no bones.", "Photograph a shark: Ada", "Something red: Bo", "Who did what", "The Aquarium"] {
                #expect(text.contains(expected), "\(expected) in \(text)")
            }
            #expect(!text.contains("Rockor"), "an open mission is no chapter")
            let bo3 = try #require(text.range(of: "Bo: 3 photos"))
            let ada1 = try #require(text.range(of: "Ada: 1 photo"))
            #expect(bo3.lowerBound < ada1.lowerBound, "most photos first")

            // In Swedish, the venue's words and Groupie's.
            let (_, swedish) = try await PhotoRouteTests.bytes(client, "/api/v1/groups/\(group.id)/recap.pdf?lang=sv", headers: ada.auth)
            let svPath = TestImages.folder + "/recap-\(UUID().uuidString).pdf"
            try swedish.write(to: URL(fileURLWithPath: svPath))
            let svText = try Self.poppler("pdftotext", [svPath, "-"])
            #expect(svText.contains("Vem gjorde vad") && svText.contains("Hajar") && svText.contains("Akvariet"))
            // Its collages are drawn in Swedish too, titles and all: not the English recap's pictures.
            let (englishImages, swedishImages) = (try Self.extractedImages(pdf), try Self.extractedImages(svPath))
            #expect(englishImages.count == 2 && swedishImages.count == 2)
            #expect(zip(englishImages, swedishImages).allSatisfy { $0 != $1 }, "the Swedish recap's collages are the English ones")

            // The PNG: a picture with nothing but its pixels.
            (status, body) = try await PhotoRouteTests.bytes(client, "/api/v1/groups/\(group.id)/recap.png", headers: ada.auth)
            #expect(status == .ok)
            #expect(body.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            let png = TestImages.folder + "/recap-\(UUID().uuidString).png"
            try body.write(to: URL(fileURLWithPath: png))
            let size = try TestImages.header(png)
            #expect(size.width > 1000 && size.height > size.width)
            for chunk in ["eXIf", "tEXt", "iTXt", "zTXt"] {
                #expect(body.range(of: Data(chunk.utf8)) == nil, "no \(chunk) chunk")
            }

            // The last mission done: the visit is over.
            let ray = try TestImages.solid(width: 600, height: 800, rgb: (200, 200, 30), ext: "jpg")
            let (rayStatus, _) = try await PhotoRouteTests.upload(client, ray, as: bo, group: group.id, query: "?mission=rays&task=ray")
            #expect(rayStatus.status == .created)
            #expect(try await Self.visitEnd(client, group: group.id, as: ada) == "missions-done")
            (status, body) = try await PhotoRouteTests.bytes(client, "/api/v1/groups/\(group.id)/recap.pdf", headers: bo.auth)
            #expect(status == .ok)
            try body.write(to: URL(fileURLWithPath: pdf))
            #expect(try Self.images(inPDF: pdf).count == 3, "every collage")
        }
    }

    @Test("The visit also ends when staff close the group or its joining time is over; a recap without a completed mission holds no collage")
    func otherEnds() async throws {
        let server = try CollageRouteTests.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let closed = try await client.newGroup(by: ada)
            _ = try await server.database().closeGroup(id: closed.id, reason: "The museum closes", now: server.clock.now)
            #expect(try await Self.visitEnd(client, group: closed.id, as: ada) == "closed")
            let (status, body) = try await PhotoRouteTests.bytes(client, "/api/v1/groups/\(closed.id)/recap.pdf", headers: ada.auth)
            #expect(status == .ok)
            let pdf = TestImages.folder + "/recap-\(UUID().uuidString).pdf"
            try body.write(to: URL(fileURLWithPath: pdf))
            #expect(try Self.images(inPDF: pdf).isEmpty)

            let open = try await client.newGroup(by: bo)
            #expect(try await Self.visitEnd(client, group: open.id, as: bo) == nil)
            server.clock.advance(by: 8 * 3600)
            #expect(try await Self.visitEnd(client, group: open.id, as: bo) == "joining-time-over")
        }
    }
}

extension RecapRouteTests {
    @Test("A venue on Letter paper prints on Letter pages: every chapter from the top of a page, each collage whole on one, the names under it and a number on every page; the PNG stays one tall page")
    func letterPages() throws {
        let tall = try TestImages.solid(width: 800, height: 1600, rgb: (200, 60, 30), ext: "png")
        let wide = try TestImages.solid(width: 1600, height: 900, rgb: (30, 60, 200), ext: "png")
        let fact = String(repeating: "Sharks have been around for more than 400 million years. ", count: 6)
        let chapters = [tall, wide, tall].enumerated().map { index, image in
            RecapPage.Chapter(title: "Mission \(index + 1)", imagePath: image, fact: fact, credits: "Photograph a shark: Ada · Something red: Bo")
        }
        let page = RecapPage(
            title: "Team Shark", subtitle: "The Aquarium · 7 December 2026", language: "en", colour: "#1a6b8a", logoPath: nil,
            factLabel: "Did you know?", peopleLabel: "Who did what", people: (1...30).map { "Member \($0): 1 photo (Mission 1)" },
            chapters: chapters, footer: "Made with Groupie", paper: .letter
        )
        let pdf = TestImages.folder + "/recap-letter-\(UUID().uuidString).pdf"
        try page.render(format: .pdf, to: pdf)
        let info = try Self.poppler("pdfinfo", [pdf]).split(separator: "\n")
        #expect(info.contains { $0.hasPrefix("Page size:") && $0.contains("612 x 792") }, "\(info)")
        let pages = try #require(info.first { $0.hasPrefix("Pages:") }.flatMap { Int($0.split(separator: " ").last ?? "") })
        #expect(pages >= 4, "three chapters, then thirty members: \(info)")
        #expect(try Self.images(inPDF: pdf).compactMap { Int($0.split(separator: " ").first ?? "") } == [1, 2, 3], "each chapter's collage on its own page")
        // Each page's text: its number, and a chapter's title at the top of pages 1 to 3.
        for number in 1...pages {
            let text = try Self.poppler("pdftotext", ["-f", "\(number)", "-l", "\(number)", "-layout", pdf, "-"])
            #expect(text.replacingOccurrences(of: " ", with: "").contains("\(number)/\(pages)"), "page \(number): \(text)")
            if number <= 3 { #expect(text.contains("Mission \(number)") && text.contains("Something red: Bo"), "page \(number): \(text)") }
        }
        let png = TestImages.folder + "/recap-letter-\(UUID().uuidString).png"
        try page.render(format: .png(dpi: 72), to: png)
        let size = try Self.poppler("file", [png])
        #expect(size.contains("PNG image data, 595 x"), "one page as wide as the phone's: \(size)")
    }
}

@Suite("Recaps drawn once")
struct RecapCacheTests {
    static func page(_ title: String) -> RecapPage {
        RecapPage(
            title: title, subtitle: "The Aquarium · 7 December", language: "en", colour: "#1a6b8a", logoPath: nil, factLabel: "Did you know?",
            peopleLabel: "Who did what", people: ["Ada: 2 photos"], chapters: [], footer: "Groupie"
        )
    }

    @Test("The same page is drawn once and sent as kept; a change on it draws it anew; a group draws two at once and a third waits with 429 recap-busy")
    func drawnOnce() async throws {
        let work = ImageWorkQueue(width: 1)
        let cache = RecapCache(work: work, clock: { Date(timeIntervalSince1970: 1_800_000_000) })
        let first = try await cache.recap(Self.page("Team Shark"), format: .pdf, groupId: "g")
        #expect(first.starts(with: Data("%PDF".utf8)))
        #expect(try await cache.recap(Self.page("Team Shark"), format: .pdf, groupId: "g") == first)
        #expect(cache.count == 1, "kept once")
        _ = try await cache.recap(Self.page("Team Shark"), format: .png(dpi: 72), groupId: "g")
        _ = try await cache.recap(Self.page("Team Whale"), format: .pdf, groupId: "g")
        #expect(cache.count == 3, "another format, another name: drawn anew")

        // The queue held by other work: two recaps of the group wait for it, a third is refused.
        let release = DispatchSemaphore(value: 0)
        let (held, holds) = AsyncStream.makeStream(of: Void.self)
        let blocker = Task { try await work.run { holds.finish(); release.wait() } }
        for await _ in held {}
        let waiting = [Task { try await cache.recap(Self.page("A"), format: .pdf, groupId: "g") }, Task { try await cache.recap(Self.page("B"), format: .pdf, groupId: "g") }]
        try await eventually("two recaps of the group drawing") { cache.drawing(groupId: "g") == 2 }
        let refused = await #expect(throws: Problem.self) { try await cache.recap(Self.page("C"), format: .pdf, groupId: "g") }
        #expect(refused?.status == .tooManyRequests && refused?.code == "recap-busy" && refused?.headers[.retryAfter] != nil)
        // Another group is not held up by this one's bound (it waits for the queue only).
        let other = Task { try await cache.recap(Self.page("D"), format: .pdf, groupId: "h") }
        release.signal()
        try await blocker.value
        for task in waiting { #expect(try await task.value.starts(with: Data("%PDF".utf8))) }
        #expect(try await other.value.starts(with: Data("%PDF".utf8)))
    }
}
