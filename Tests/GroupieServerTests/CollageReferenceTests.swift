import Foundation
import GroupieTestSupport
import Testing

/// The reference collages in `Tests/Fixtures/Collages/`, each drawn again as
/// `scripts/reference-collages` drew it (the same lines of that script), and compared with the
/// committed picture pixel by pixel: a change of layout, crop, caption or colour shows here.
@Suite("Reference collages")
struct CollageReferenceTests {
    struct Reference: CustomTestStringConvertible, Sendable {
        var name: String
        var venue: String
        var mission: String
        var names: String
        var photos: [String]
        var testDescription: String { name }
    }

    /// The `draw` lines of `scripts/reference-collages`.
    static let references: [Reference] = {
        let script = (try? String(contentsOf: TestServer.repository.appendingPathComponent("scripts/reference-collages"), encoding: .utf8)) ?? ""
        return script.split(separator: "\n").compactMap { line in
            guard let match = line.wholeMatch(of: /draw (\S+) (\S+) (\S+) "([^"]*)" (.+)/) else { return nil }
            let photos = match.output.5.split(separator: " ").map { $0.replacingOccurrences(of: "$photos", with: "Tests/Fixtures/Photos") }
            return Reference(name: String(match.output.1), venue: String(match.output.2), mission: String(match.output.3), names: String(match.output.4), photos: photos)
        }
    }()

    /// Tolerances: the mean difference over every pixel and channel, in levels of 255, and the
    /// largest difference of a 16 × 16 block's mean. Drawn again by the same build, the pictures
    /// differ by nothing; the slack is for another libvips or FreeType release's rounding. A tile
    /// cropped elsewhere, a caption changed or a colour off moves a block by far more.
    static let meanTolerance = 1.5
    static let blockTolerance = 24.0

    @Test("Every style's reference is there")
    func listed() {
        #expect(Set(Self.references.map(\.name)) == ["grid", "strip", "polaroid", "auto", "sticker", "sticker-heart"])
    }

    @Test("Each collage is drawn as its reference picture shows it", arguments: references)
    func drawnAsReference(_ reference: Reference) async throws {
        let drawn = TestImages.folder + "/reference-\(reference.name)-\(UUID().uuidString).jpg"
        let result = try await CommandLineTests.run(
            ["collage", "--venue", "missions/\(reference.venue).yaml", "--mission", reference.mission, "--assets", "assets", "--size", "1024",
             "--group", "Class 5B", "--names", reference.names, "--day", "2026-11-26", "--out", drawn] + reference.photos
        )
        #expect(result.status == 0, "\(result.output)\(result.errors)")
        let committed = TestServer.repository.appendingPathComponent("Tests/Fixtures/Collages/\(reference.name).jpg").path
        let (mean, block) = try Self.difference(drawn, committed)
        #expect(mean <= Self.meanTolerance, "\(reference.name): mean difference \(mean)")
        #expect(block <= Self.blockTolerance, "\(reference.name): a block differs by \(block)")
    }

    @Test("The comparison sees a tile moved by a few pixels")
    func comparisonSeesAShift() throws {
        let committed = TestServer.repository.appendingPathComponent("Tests/Fixtures/Collages/grid.jpg").path
        let shifted = TestImages.folder + "/shifted-\(UUID().uuidString).jpg"
        let size = try TestImages.header(committed)
        try TestImages.vips(["embed", committed, shifted, "6", "0", "\(size.width)", "\(size.height)", "--extend", "copy"])
        let (_, block) = try Self.difference(shifted, committed)
        #expect(block > Self.blockTolerance)
    }

    /// The mean absolute difference of two pictures of one size, and the largest of their
    /// 16 × 16 blocks' mean differences, read with libvips' own command line.
    static func difference(_ a: String, _ b: String) throws -> (mean: Double, block: Double) {
        let sizeA = try TestImages.header(a), sizeB = try TestImages.header(b)
        guard sizeA == sizeB else { throw TestFailure("\(a) is \(sizeA), \(b) is \(sizeB)") }
        let base = TestImages.folder + "/difference-\(UUID().uuidString)"
        try TestImages.vips(["subtract", a, b, base + "-d.v"])
        try TestImages.vips(["abs", base + "-d.v", base + "-a.v"])
        try TestImages.vips(["shrink", base + "-a.v", base + "-s.v", "16", "16"])
        func number(_ operation: String, _ path: String) throws -> Double {
            let output = try PDFTools.run("vips", [operation, path]).output.trimmingCharacters(in: .whitespacesAndNewlines)
            guard let value = Double(output) else { throw TestFailure("vips \(operation) said '\(output)'") }
            return value
        }
        return (try number("avg", base + "-a.v"), try number("max", base + "-s.v"))
    }
}

extension CollageReferenceTests {
    @Test("A photo a sliver wide costs its tile what the tile costs: what lies far beyond its place is cut before it is scaled")
    func sliverCostsItsPlace() async throws {
        // 64 × 400,000: covering its place in a 1024-pixel collage (about 490 × 290) scales it
        // to some 490 × 3 million pixels, over 4 GB, all held to be cropped. Drawn by `groupie collage` in a
        // process of its own, whose peak memory is its own (the tests' process runs many at once).
        let sliver = TestImages.folder + "/sliver-\(UUID().uuidString).png"
        try TestImages.vips(["black", sliver, "64", "400000"])
        let out = TestImages.folder + "/sliver-\(UUID().uuidString).jpg"
        let peak = #"import resource, subprocess, sys; r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(r.returncode)"#
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.currentDirectoryURL = TestServer.repository
        process.arguments = ["-c", peak, CommandLineTests.executable, "collage", "--venue", "missions/science-centre.yaml", "--mission", "rocket-launch",
                             "--assets", "assets", "--size", "1024", "--out", out, "Tests/Fixtures/Photos/rocket.jpg", sliver, "Tests/Fixtures/Photos/hubble.jpg"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let kibibytes = try #require(Int(printed.trimmingCharacters(in: .whitespacesAndNewlines)), "\(printed)")
        #expect(kibibytes < 512 * 1024, "drawing the sliver's collage took \(kibibytes / 1024) MiB")
        // The space suit's place (the second, not a `framing: whole` one) is covered, black.
        #expect(TestImages.close(try TestImages.pixel(out, x: 256, y: 450), (0, 0, 0)))
    }
}
