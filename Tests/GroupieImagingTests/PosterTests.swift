import Foundation
@testable import GroupieImaging
import GroupieTestSupport
import Testing

@Suite("Posters")
struct PosterTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func run(_ executable: String, _ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

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
        let (_, info) = try Self.run("pdfinfo", [path])
        #expect(info.split(separator: "\n").contains { $0.hasPrefix("Pages:") && $0.split(separator: " ").last == "1" })
        #expect(info.contains("595.276 x 841.89 pts (A4)"))
        let (_, text) = try Self.run("pdftotext", [path, "-"])
        #expect(text.contains("Science Centre") && text.contains("Skanna koden") && text.contains("https://groupie.example/?venue=science-centre"))
        let image = TestImages.folder + "/poster-\(UUID().uuidString)"
        #expect(try Self.run("pdftoppm", ["-r", "100", "-png", "-singlefile", path, image]).0 == 0)
        let (status, decoded) = try Self.run("zbarimg", ["--quiet", "--raw", image + ".png"])
        #expect(status == 0)
        #expect(decoded.trimmingCharacters(in: .whitespacesAndNewlines) == "https://groupie.example/?venue=science-centre")
    }

    @Test("An A3 PNG poster at 72 dpi has A3's size in pixels, and its QR code decodes")
    func png() throws {
        let path = TestImages.folder + "/poster-\(UUID().uuidString).png"
        try Self.poster.render(paper: .a3, format: .png(dpi: 72), to: path)
        let (_, header) = try Self.run("vipsheader", [path])
        #expect(header.contains("842x1191"))
        let (status, decoded) = try Self.run("zbarimg", ["--quiet", "--raw", path])
        #expect(status == 0 && decoded.contains("venue=science-centre"))
    }

    @Test("A logo that cannot be read is left out; an absurd resolution is refused with a message")
    func failures() throws {
        var poster = Self.poster
        poster.logoPath = "/nonexistent/logo.svg"
        let path = TestImages.folder + "/poster-\(UUID().uuidString).pdf"
        try poster.render(paper: .a4, format: .pdf, to: path)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(throws: Poster.Failure.self) { try poster.render(paper: .a3, format: .png(dpi: 5000), to: path + ".png") }
        #expect(Poster.components(of: "#ff8000") == (1, 128.0 / 255, 0))
        #expect(Poster.components(of: "not a colour") == (0.12, 0.36, 0.55))
    }
}
