import Foundation
@testable import GroupieImaging
import GroupieTestSupport
import Testing

@Suite("Posters")
struct PosterTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let poster = Poster(
        title: "Science Centre: photo missions",
        instructions: [
            (language: "en", text: "Scan the code with your phone's camera, type your name and start a group."),
            (language: "sv", text: "Skanna koden med mobilens kamera, skriv ditt namn och starta en grupp."),
            (language: "ja", text: "スマートフォンのカメラでコードを読み取ってください。"),
        ],
        colour: "#0b6e4f",
        logoPath: repository.appendingPathComponent("assets/logos/science-centre.svg").path,
        url: "https://groupie.example/?venue=science-centre"
    )

    @Test("An A4 PDF poster: one page of A4, its text extractable, its QR code decodes to the start URL once rendered")
    func pdf() throws {
        let path = TestImages.folder + "/poster-\(UUID().uuidString).pdf"
        try Self.poster.render(paper: .a4, format: .pdf, to: path)
        let pdf = try Data(contentsOf: URL(fileURLWithPath: path))
        let info = try PDFTools.info(pdf)
        #expect(info.split(separator: "\n").contains { $0.hasPrefix("Pages:") && $0.split(separator: " ").last == "1" })
        #expect(info.contains("595.276 x 841.89 pts (A4)"))
        let text = try PDFTools.text(pdf)
        #expect(text.contains("Science Centre") && text.contains("Skanna koden") && text.contains("https://groupie.example/?venue=science-centre"))
        #expect(try QRDecoder.decode(try PDFTools.firstPage(pdf)) == "https://groupie.example/?venue=science-centre")
    }

    @Test("An A3 PNG poster at 72 dpi has A3's size in pixels, and its QR code decodes")
    func png() throws {
        let path = TestImages.folder + "/poster-\(UUID().uuidString).png"
        try Self.poster.render(paper: .a3, format: .png(dpi: 72), to: path)
        #expect(try PDFTools.run("vipsheader", [path]).output.contains("842x1191"))
        #expect(try QRDecoder.decode(try Data(contentsOf: URL(fileURLWithPath: path))) == "https://groupie.example/?venue=science-centre")
    }

    @Test("A logo that cannot be read is left out; an absurd resolution is refused with a message")
    func failures() throws {
        var poster = Self.poster
        poster.logoPath = "/nonexistent/logo.svg"
        let path = TestImages.folder + "/poster-\(UUID().uuidString).pdf"
        try poster.render(paper: .a4, format: .pdf, to: path)
        // The rest of the poster is there: its text, and a QR code that decodes.
        let pdf = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(try PDFTools.text(pdf).contains("Science Centre") && PDFTools.text(pdf).contains("Skanna koden"))
        #expect(try QRDecoder.decode(try PDFTools.firstPage(pdf)) == "https://groupie.example/?venue=science-centre")
        // And the logo is not: the page differs from the one drawn with the logo.
        let withLogo = TestImages.folder + "/poster-\(UUID().uuidString).pdf"
        try Self.poster.render(paper: .a4, format: .pdf, to: withLogo)
        let logoPage = try PDFTools.firstPage(try Data(contentsOf: URL(fileURLWithPath: withLogo)), dpi: 50)
        #expect(try PDFTools.firstPage(pdf, dpi: 50) != logoPage)
        #expect(throws: Poster.Failure.self) { try poster.render(paper: .a3, format: .png(dpi: 5000), to: path + ".png") }
        #expect(Poster.components(of: "#ff8000") == (1, 128.0 / 255, 0))
        #expect(Poster.components(of: "not a colour") == (0.12, 0.36, 0.55))
    }
}
