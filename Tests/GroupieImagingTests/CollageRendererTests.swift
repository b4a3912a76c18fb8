import Foundation
import GroupieCore
import GroupieTestSupport
import Testing

@testable import GroupieImaging

@Suite("Collage rendering")
struct CollageRendererTests {
    static let colours: [(Int, Int, Int)] = [
        (220, 40, 40), (40, 180, 60), (40, 80, 220), (230, 200, 30), (200, 40, 200),
        (30, 200, 200), (240, 130, 20), (120, 60, 20), (90, 90, 90),
    ]
    static let caption = CollageContent.Caption(title: "Under the sea", subtitle: "The Aquarium · 21 November 2026", names: ["Ada", "Bo"])

    /// Solid photos of distinct colours, in a mix of shapes.
    static func photos(_ count: Int) throws -> (paths: [String], sizes: [PixelSize]) {
        let shapes = [(800, 600), (600, 800), (900, 900), (1200, 500), (640, 480), (480, 640), (700, 700), (1000, 600), (600, 1000)]
        var paths: [String] = [], sizes: [PixelSize] = []
        for index in 0..<count {
            let (w, h) = shapes[index % shapes.count]
            paths.append(try TestImages.solid(width: w, height: h, rgb: colours[index], ext: "jpg"))
            sizes.append(PixelSize(width: w, height: h))
        }
        return (paths, sizes)
    }

    static func output(_ ext: String) -> String {
        TestImages.folder + "/collage-\(UUID().uuidString).\(ext)"
    }

    /// Samples points well inside every tile and checks they have its photo's colour.
    static func expectTilesFromTheirPhotos(_ path: String, layout: CollageLayout) throws {
        for tile in layout.tiles {
            let f = tile.frame
            let cx = f.x + f.width / 2, cy = f.y + f.height / 2
            let points = tile.rotation == 0
                ? [(cx, cy), (f.x + f.width / 5, f.y + f.height / 5), (f.maxX - f.width / 5, f.maxY - f.height / 5)]
                : [(cx, cy)]
            for (x, y) in points {
                let pixel = try TestImages.pixel(path, x: x, y: y)
                #expect(TestImages.close(pixel, colours[tile.photoIndex]), "tile \(tile.photoIndex) at \(x),\(y) is \(pixel)")
            }
        }
    }

    @Test("Every style: the picture has the layout's size and each tile shows its own photo", arguments: [VisualStyle.grid, .strip, .auto, .polaroid])
    func styles(style: VisualStyle) throws {
        let renderer = try CollageRenderer()
        let (paths, sizes) = try Self.photos(5)
        let layout = CollageLayoutEngine.layout(photos: sizes, longEdge: 1024, style: style)
        let out = Self.output("jpg")
        let report = try renderer.render(layout: layout, content: CollageContent(photoPaths: paths, caption: Self.caption, themeColor: "#0b6e8a"), format: .jpeg, to: out)
        #expect(report.missingAssets.isEmpty)
        let size = try TestImages.header(out)
        #expect(size.width == layout.canvas.width && size.height == layout.canvas.height)
        #expect(max(size.width, size.height) == 1024)
        try Self.expectTilesFromTheirPhotos(out, layout: layout)
        // The caption band's corner has the venue's colour.
        let corner = try TestImages.pixel(out, x: layout.caption.x + 2, y: layout.caption.maxY - 3)
        #expect(TestImages.close(corner, (11, 110, 138)), "caption corner is \(corner)")
    }

    @Test("Nine photos at 2048 px, as JPEG and as PNG")
    func ninePhotos() throws {
        let renderer = try CollageRenderer()
        let (paths, sizes) = try Self.photos(9)
        let layout = CollageLayoutEngine.layout(photos: sizes, longEdge: 2048, style: .auto)
        #expect(Set(layout.tiles.map(\.photoIndex)) == Set(0..<9))
        for format in CollageFileFormat.allCases {
            let out = Self.output(format.rawValue)
            _ = try renderer.render(layout: layout, content: CollageContent(photoPaths: paths, caption: Self.caption, themeColor: "#8a1c3b"), format: format, to: out)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: out))
            #expect(bytes.starts(with: format == .png ? [0x89, 0x50, 0x4E, 0x47] : [0xFF, 0xD8, 0xFF]))
            let size = try TestImages.header(out)
            #expect(size.width == layout.canvas.width && size.height == layout.canvas.height)
            try Self.expectTilesFromTheirPhotos(out, layout: layout)
        }
    }

    @Test("Sticker style draws the sticker over the photo; a missing sticker falls back to the plain frame")
    func sticker() throws {
        let renderer = try CollageRenderer()
        let (paths, sizes) = try Self.photos(1)
        let layout = CollageLayoutEngine.layout(photos: sizes, longEdge: 1024, style: .sticker)
        let assets = TestServerAssets.repository + "/assets"
        let present = CollageContent(
            photoPaths: paths, caption: Self.caption, themeColor: "#8a1c3b", logoPath: assets + "/logos/art-museum.svg",
            stickerPath: assets + "/stickers/star.svg", framePath: assets + "/frames/frame-gold.svg", plainFramePath: assets + "/frames/frame-plain.svg"
        )
        let out = Self.output("jpg")
        #expect(try renderer.render(layout: layout, content: present, format: .jpeg, to: out).missingAssets.isEmpty)
        let sticker = try #require(layout.sticker)
        // The star's yellow is in the middle of the sticker's place, not the photo's red.
        let middle = try TestImages.pixel(out, x: sticker.x + sticker.width / 2, y: sticker.y + sticker.height / 2)
        #expect(!TestImages.close(middle, Self.colours[0], tolerance: 40), "sticker centre is \(middle)")

        var missing = present
        missing.stickerPath = assets + "/stickers/no-such-sticker.svg"
        let fallback = Self.output("jpg")
        let report = try renderer.render(layout: layout, content: missing, format: .jpeg, to: fallback)
        #expect(report.missingAssets == [assets + "/stickers/no-such-sticker.svg"])
        #expect(try TestImages.header(fallback).width == layout.canvas.width)

        // A logo that is there but broken is left out, and said so; the picture is still made.
        let broken = TestImages.folder + "/broken-logo-\(UUID().uuidString).svg"
        try Data("<svg xmlns=\"http://www.w3.org/2000/svg\"><path d=".utf8).write(to: URL(fileURLWithPath: broken))
        var brokenLogo = present
        brokenLogo.logoPath = broken
        let withoutLogo = Self.output("jpg")
        let brokenReport = try renderer.render(layout: layout, content: brokenLogo, format: .jpeg, to: withoutLogo)
        #expect(brokenReport.missingAssets.isEmpty && brokenReport.unreadableAssets == 1)
        #expect(try TestImages.header(withoutLogo).width == layout.canvas.width)
    }

    @Test("Names in other scripts and right-to-left names are set without failing")
    func scripts() throws {
        let renderer = try CollageRenderer()
        let (paths, sizes) = try Self.photos(2)
        let layout = CollageLayoutEngine.layout(photos: sizes, longEdge: 800, style: .grid)
        let caption = CollageContent.Caption(title: "Ångström & <friends>'s \"lab\"", subtitle: "Μουσείο · 21 ноября 2026", names: ["مريم", "שרה", "Zoë", "Дмитрий", "👩🏽‍🚀 Ada"])
        let out = Self.output("jpg")
        _ = try renderer.render(layout: layout, content: CollageContent(photoPaths: paths, caption: caption, themeColor: "#f4d35e"), format: .jpeg, to: out)
        #expect(try TestImages.header(out).width == layout.canvas.width)
    }

    /// How much a character drawn alone in the caption's fonts looks like a box: the least inked
    /// share of the four edges of its ink's bounds. A glyph no font has is drawn as a box (its
    /// .notdef, or Pango's box around the code point), inked all round; a letter is not.
    static func boxLikeness(_ character: String) throws -> Double {
        let base = TestImages.folder + "/\(UUID().uuidString)"
        try TestImages.vips(["text", base + ".v", character, "--font", "\(CollageRenderer.fontFamily) 48", "--dpi", "72"])
        try TestImages.vips(["csvsave", base + ".v", base + ".csv"])
        let rows = try String(contentsOfFile: base + ".csv", encoding: .utf8).split(separator: "\n")
            .map { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { (Int($0) ?? 0) > 96 } }
            .filter { !$0.isEmpty }
        let inkedRows = rows.indices.filter { rows[$0].contains(true) }
        let inkedColumns = rows[0].indices.filter { x in rows.contains { $0[x] } }
        guard let top = inkedRows.first, let bottom = inkedRows.last, let left = inkedColumns.first, let right = inkedColumns.last else { return 0 }
        func share(_ cells: [Bool]) -> Double { Double(cells.filter { $0 }.count) / Double(cells.count) }
        // Each edge may be a pixel in from the bounds, where anti-aliasing left it fainter.
        let row = { (y: Int) in share(Array(rows[y][left...right])) }
        let column = { (x: Int) in share((top...bottom).map { rows[$0][x] }) }
        return [max(row(top), row(top + 1)), max(row(bottom), row(bottom - 1)), max(column(left), column(left + 1)), max(column(right), column(right - 1))].min() ?? 0
    }

    @Test("Names in Latin, Chinese, Japanese, Korean, Arabic and emoji are drawn with real glyphs, not boxes")
    func noTofu() throws {
        #expect(try Self.boxLikeness("\u{0378}") > 0.9, "a code point no font has is a box: the measure sees boxes")
        #expect(try Self.boxLikeness("\u{E000}") > 0.9)
        for name in ["Ada", "李小龙", "さくら", "지민", "مريم", "Zoë 👩🏽‍🚀"] {
            for character in name where !character.isWhitespace {
                #expect(try Self.boxLikeness(String(character)) < 0.6, "\(character) of \(name) is drawn as a box")
            }
        }
        // And the caption with them all is drawn.
        let renderer = try CollageRenderer()
        let (paths, sizes) = try Self.photos(2)
        let layout = CollageLayoutEngine.layout(photos: sizes, longEdge: 800, style: .grid)
        let caption = CollageContent.Caption(title: "Hajar", subtitle: "Akvariet · 23 november 2026", names: ["Ada", "李小龙", "さくら", "지민", "مريم", "Zoë 👩🏽‍🚀"])
        let out = Self.output("png")
        _ = try renderer.render(layout: layout, content: CollageContent(photoPaths: paths, caption: caption, themeColor: "#0b6e4f"), format: .png, to: out)
        #expect(try TestImages.header(out).width == layout.canvas.width)
    }

    @Test("The date line's digits and punctuation are drawn by the text font, not by the emoji font")
    func digitsInTextFont() throws {
        func width(_ text: String, font: String) throws -> Int {
            let path = TestImages.folder + "/\(UUID().uuidString).png"
            try TestImages.vips(["text", path, text, "--font", "\(font) 40", "--dpi", "72", "--rgba"])
            return try TestImages.header(path).width
        }
        for text in ["November 24, 2026", "23. November 2026 · 10:45", "Tabell 12"] {
            #expect(try width(text, font: CollageRenderer.fontFamily) == width(text, font: "DejaVu Sans"), "\(text)")
        }
    }

    @Test("The caption fits whole at every length of names: a long one is set smaller, never cut; the date never breaks")
    func captionFits() throws {
        #expect(
            CaptionMarkup.unbroken("The Sharks · Akvariet · 23 november 2026")
                == ["The\u{00A0}Sharks", "Akvariet", "23\u{00A0}november\u{00A0}2026"].map { "\u{2068}\($0)\u{2069}" }.joined(separator: " · ")
        )
        let renderer = try CollageRenderer()
        let (paths, sizes) = try Self.photos(3)
        for style in [VisualStyle.strip, .grid] {
            let layout = CollageLayoutEngine.layout(photos: sizes, longEdge: 900, style: style)
            var percents: [Int] = []
            for length in [1, 8, 32] {
                let names = (0..<6).map { String(repeating: "Wolfgang Amadeus ", count: 1 + length / 16) + "\($0)" }
                let caption = CollageContent.Caption(
                    title: String(repeating: "Donaudampfschifffahrt ", count: max(1, length / 8)),
                    subtitle: "Die Haifische mit den langen Namen · Naturhistorisches Museum der Stadt · 23. November 2026",
                    names: names.map { String($0.prefix(length + 2)) }
                )
                let report = try renderer.render(layout: layout, content: CollageContent(photoPaths: paths, caption: caption, themeColor: "#0b6e4f"), format: .jpeg, to: Self.output("jpg"))
                // Set smaller down to a third of its size at most: past that it would be cut.
                #expect(report.captionPercent > 33 && report.captionPercent <= 100, "\(style) with names of \(length): \(report.captionPercent) %")
                percents.append(report.captionPercent)
            }
            #expect(percents == percents.sorted(by: >), "longer captions are not set larger: \(percents)")
            if style == .strip { #expect(percents.last! < 100, "the narrow strip's longest caption had to be set smaller: \(percents)") }
        }
        let short = CollageContent.Caption(title: "Hajar", subtitle: "Akvariet · 23 november 2026", names: ["Ada", "Bo"])
        let grid = CollageLayoutEngine.layout(photos: sizes, longEdge: 900, style: .grid)
        #expect(try renderer.render(layout: grid, content: CollageContent(photoPaths: paths, caption: short, themeColor: "#0b6e4f"), format: .jpeg, to: Self.output("jpg")).captionPercent == 100)
    }

    @Test("A photo that is gone fails the render and leaves no file behind")
    func missingPhoto() throws {
        let renderer = try CollageRenderer()
        let (paths, sizes) = try Self.photos(2)
        let layout = CollageLayoutEngine.layout(photos: sizes, longEdge: 800, style: .grid)
        let out = Self.output("jpg")
        #expect(throws: PhotoProcessor.Failure.self) {
            try renderer.render(layout: layout, content: CollageContent(photoPaths: [paths[0], TestImages.folder + "/gone.jpg"], caption: Self.caption, themeColor: "#000000"), format: .jpeg, to: out)
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("Ink on the caption band contrasts with the venue colour (WCAG AA for large text at least)")
    func ink() {
        for hex in ["#0b6e8a", "#8a1c3b", "#f4d35e", "#ffffff", "#000000", "#777777", "#00ff00"] {
            let colour = RGB(hex: hex)!
            #expect(colour.contrast(with: colour.readableInk) >= 3, "\(hex)")
        }
        #expect(RGB(hex: "#12345") == nil)
        #expect(CaptionMarkup.escape("<b>&\"'") == "&lt;b&gt;&amp;&quot;&#39;")
    }

    @Test("Every member is named on the caption: long names are cut with an ellipsis, none is left out, and each is isolated for bidi")
    func everyMemberNamed() {
        let isolated = { (name: String) in "\u{2068}\(name)\u{2069}" }
        #expect(CaptionMarkup.shortened(["Ada", "Bo", "Cy", "Di"], budget: 16) == ["Ada", "Bo", "Cy", "Di"].map(isolated).joined(separator: ", "))
        // A 32-character name beside short ones: it is cut, and Sven is still there.
        let names = ["Oliver Maximilian Alexander Berg", "Sven", "ليلى", "Zoë"]
        let shown = CaptionMarkup.shortened(names, budget: 30)
        #expect(shown == [isolated("Oliver Maxim…"), isolated("Sven"), isolated("ليلى"), isolated("Zoë")].joined(separator: ", "), "\(shown)")
        #expect(shown.filter { $0 != "\u{2068}" && $0 != "\u{2069}" }.count == 30, "the longest cut just to the budget")
        // Far past the budget: every name at its shortest, and still every one.
        let many = (1...12).map { "Wilhelmina Augusta \($0)" }
        let crowded = CaptionMarkup.shortened(many, budget: 40)
        #expect(crowded.components(separatedBy: ", ").count == 12 && crowded.components(separatedBy: ", ").allSatisfy { $0 == isolated("Wilhelmi…") }, "\(crowded)")
    }

    @Test("The caption's lines of names and places run in the direction of its language, whatever name or date comes first")
    func captionDirection() {
        let ink = RGB(hex: "#ffffff")!
        let arabic = CaptionMarkup.markup(
            CollageContent.Caption(title: "القروش", subtitle: "المتحف · 7 ديسمبر 2026", names: ["Oliver", "ليلى"], language: "ar"), baseSize: 20, width: 800, ink: ink
        )
        let english = CaptionMarkup.markup(
            CollageContent.Caption(title: "Sharks", subtitle: "The Aquarium · 7 December 2026", names: ["ليلى", "Oliver"], language: "en"), baseSize: 20, width: 800, ink: ink
        )
        func lines(_ markup: String) -> [String] {
            markup.replacingOccurrences(of: "<[^>]+>", with: "", options: .regularExpression).components(separatedBy: "\n")
        }
        #expect(lines(arabic).count == 3 && lines(arabic).dropFirst().allSatisfy { $0.hasPrefix("\u{200F}") }, "\(lines(arabic))")
        #expect(lines(english).count == 3 && lines(english).dropFirst().allSatisfy { $0.hasPrefix("\u{200E}") }, "\(lines(english))")
        #expect(lines(arabic)[0] == "القروش" && lines(english)[0] == "Sharks", "a title takes its own direction")
        // The subtitle's parts keep their order: each is isolated.
        #expect(lines(arabic)[1] == "\u{200F}\u{2068}المتحف\u{2069} · \u{2068}7\u{00A0}ديسمبر\u{00A0}2026\u{2069}")
        #expect(lines(english)[2] == "\u{200E}\u{2068}ليلى\u{2069}, \u{2068}Oliver\u{2069}")
    }
}

enum TestServerAssets {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
}

extension CollageRendererTests {
    @Test("The subject of a photo is found where its detail is, and the crop is placed around it")
    func focus() throws {
        // A dark photo with a busy patch near its bottom-right corner.
        let base = TestImages.folder + "/focus-\(UUID().uuidString)"
        try TestImages.vips(["gaussnoise", base + "-noise.v", "160", "160", "--sigma", "90", "--mean", "128", "--seed", "7"])
        try TestImages.vips(["embed", base + "-noise.v", base + "-grey.v", "600", "380", "800", "600"])
        try TestImages.vips(["colourspace", base + "-grey.v", base + ".jpg", "srgb"])
        let focus = try PhotoProcessor().focus(of: base + ".jpg")
        #expect(focus.x > 0.7 && focus.y > 0.6, "found at \(focus)")

        // A tall tile of a wide photo shows the part around the focus: the busy patch, not the dark middle.
        let renderer = try CollageRenderer()
        let layout = CollageLayoutEngine.layout(photos: [PixelSize(width: 800, height: 600), PixelSize(width: 300, height: 900)], longEdge: 600, style: .grid)
        let other = try TestImages.solid(width: 300, height: 900, rgb: (40, 80, 220), ext: "jpg")
        let out = Self.output("jpg")
        _ = try renderer.render(
            layout: layout,
            content: CollageContent(photoPaths: [base + ".jpg", other], caption: Self.caption, themeColor: "#0b6e8a", focus: [focus, nil]),
            format: .jpeg, to: out
        )
        let tile = try #require(layout.tiles.first { $0.photoIndex == 0 })
        try #require(tile.crop.width < 600, "the tile shows only part of the photo's width")
        // The patch is noise around mid-grey: one of its pixels may be dark, a square of them is not.
        let shown = try TestImages.average(out, x: tile.frame.x + tile.frame.width / 2, y: tile.frame.y + tile.frame.height * 3 / 4, size: 24)
        #expect(shown > 60, "the crop keeps the patch in view: a mean of \(shown)")
        // Without the focus the centred crop shows the dark middle there.
        let centred = Self.output("jpg")
        _ = try renderer.render(
            layout: layout,
            content: CollageContent(photoPaths: [base + ".jpg", other], caption: Self.caption, themeColor: "#0b6e8a", smartCrop: false),
            format: .jpeg, to: centred
        )
        let dark = try TestImages.pixel(centred, x: tile.frame.x + tile.frame.width / 2, y: tile.frame.y + tile.frame.height * 3 / 4)
        #expect(TestImages.close(dark, (0, 0, 0), tolerance: 20), "centred: \(dark)")
    }
}
