import CVipsShim
import Foundation
import GroupieCore

/// What a collage shows besides its layout: the photos' files, the caption and the venue's look.
public struct CollageContent: Sendable, Hashable {
    /// The caption band: the mission's title, then venue and date, then who took the photos.
    public struct Caption: Sendable, Hashable {
        public var title: String
        public var subtitle: String
        public var names: [String]
        /// BCP 47 tag of the texts: each line runs in its direction.
        public var language: String

        public init(title: String, subtitle: String, names: [String], language: String = "en") {
            self.title = title
            self.subtitle = subtitle
            self.names = names
            self.language = language
        }
    }

    /// Display derivatives, indexed like the layout's `photoIndex`.
    public var photoPaths: [String]
    public var caption: Caption
    /// The venue's theme colour, `#rrggbb`.
    public var themeColor: String
    public var logoPath: String?
    /// Sticker style: the sticker drawn over the photo, and the frame around it.
    public var stickerPath: String?
    public var framePath: String?
    /// Drawn instead of `framePath` when the sticker cannot be drawn.
    public var plainFramePath: String?
    /// Attention-based crop; centre crop when false.
    public var smartCrop: Bool
    /// Where each photo's subject is, when known (found at upload): the crop is placed around
    /// it without looking at the photo again.
    public var focus: [Focus?]
    /// What may be cut of each photo (its task's `framing`); a photo without one is cropped.
    public var framing: [Framing]
    /// Sticker style: where the sticker goes on the photo's people, and its corner when no
    /// face is found.
    public var stickerPlace: StickerPlace?
    public var stickerCorner: StickerCorner

    public init(
        photoPaths: [String], caption: Caption, themeColor: String, logoPath: String? = nil,
        stickerPath: String? = nil, framePath: String? = nil, plainFramePath: String? = nil, smartCrop: Bool = true,
        focus: [Focus?] = [], framing: [Framing] = [], stickerPlace: StickerPlace? = nil, stickerCorner: StickerCorner = .bottomRight
    ) {
        self.photoPaths = photoPaths
        self.caption = caption
        self.themeColor = themeColor
        self.logoPath = logoPath
        self.stickerPath = stickerPath
        self.framePath = framePath
        self.plainFramePath = plainFramePath
        self.smartCrop = smartCrop
        self.focus = focus
        self.framing = framing
        self.stickerPlace = stickerPlace
        self.stickerCorner = stickerCorner
    }
}

public enum CollageFileFormat: String, Sendable, Hashable, CaseIterable {
    case jpeg = "jpg"
    case png

    public var mediaType: String { self == .jpeg ? "image/jpeg" : "image/png" }
}

/// Draws a collage with libvips: photos placed by the layout, the caption band, the venue's
/// colour and logo, and for the sticker style the sticker and its frame. Blocks: call it from a
/// thread pool.
public struct CollageRenderer: Sendable {
    public struct Report: Sendable, Equatable {
        /// Assets (logo, sticker, frame) whose files are missing; the picture is drawn without them.
        public var missingAssets: [String]
        /// Assets whose files are there but could not be drawn (a broken SVG, say); left out too.
        public var unreadableAssets: Int = 0
        /// The caption's size in percent of what its band's height asks for: less when a long
        /// caption was set smaller to fit whole.
        public var captionPercent: Int = 100
        /// Sticker style: the faces found in the photo, where the sticker was placed by them;
        /// nil when none were looked for, or the face finder could not run (then the corner).
        public var faces: [PixelRect]?
        /// Sticker style: where the sticker was drawn.
        public var sticker: PixelRect?
    }

    /// DejaVu for Latin, Greek, Cyrillic, Arabic and Hebrew, then Noto for the other scripts,
    /// Chinese, Japanese and Korean (fonts-noto-core, -cjk): a name in any script is drawn,
    /// never a row of boxes. Emoji come from fontconfig's fallback (fonts-noto-color-emoji):
    /// named here, the emoji font would also draw every digit and comma of the date line, as
    /// the keycap emoji they can start.
    public static let fontFamily = "DejaVu Sans, Noto Sans, Noto Sans CJK SC"
    public static let jpegQuality = 90

    public init() throws {
        _ = try PhotoProcessor()
    }

    /// Writes the collage to `output` (which the caller renames into place once it is whole).
    public func render(layout: CollageLayout, content: CollageContent, format: CollageFileFormat, to output: String) throws -> Report {
        guard content.photoPaths.count >= (layout.tiles.map(\.photoIndex).max() ?? -1) + 1 else {
            throw PhotoProcessor.Failure.processing("the collage has \(layout.tiles.count) tiles but \(content.photoPaths.count) photos")
        }
        var missing: [String] = []
        let fileManager = FileManager.default
        func present(_ path: String?) -> String? {
            guard let path else { return nil }
            if fileManager.isReadableFile(atPath: path) { return path }
            missing.append(path)
            return nil
        }
        let theme = RGB(hex: content.themeColor) ?? RGB(red: 11, green: 110, blue: 79)
        let ink = theme.readableInk
        let paper = layout.style == .polaroid ? theme : RGB(red: 250, green: 248, blue: 244)
        var layers: [Layer] = []

        // Sticker style: a frame around the photo, and the sticker over its corner.
        var sticker: String?, frame: String?
        var faces: [PixelRect]?, drawnSticker: PixelRect?
        if layout.style == .sticker {
            sticker = present(content.stickerPath)
            frame = sticker != nil || content.stickerPath == nil ? present(content.framePath) : present(content.plainFramePath)
        }

        for tile in layout.tiles {
            let path = content.photoPaths[tile.photoIndex]
            var layer = Layer(kind: GROUPIE_LAYER_PHOTO, rect: tile.frame, source: path)
            layer.crop = content.smartCrop ? 1 : 0
            if tile.photoIndex < content.framing.count, content.framing[tile.photoIndex] == .whole {
                layer.crop = Int(GROUPIE_CROP_WHOLE)
            } else if content.smartCrop, tile.photoIndex < content.focus.count, let focus = content.focus[tile.photoIndex] {
                layer.focus = (focus.x, focus.y)
            }
            if let print = tile.print {
                layer.border = max(0, tile.frame.x - print.x)
                layer.borderBottom = max(0, print.maxY - tile.frame.maxY)
                layer.color = (255, 255, 255, 255)
                layer.rotation = tile.rotation
            }
            layers.append(layer)
        }
        if layout.style == .sticker, layout.frameWidth > 0, let tile = layout.tiles.first {
            let outer = PixelRect(
                x: tile.frame.x - layout.frameWidth, y: tile.frame.y - layout.frameWidth,
                width: tile.frame.width + 2 * layout.frameWidth, height: tile.frame.height + 2 * layout.frameWidth
            )
            if let frame {
                layers.append(Layer(kind: GROUPIE_LAYER_OVERLAY, rect: outer, source: frame))
            } else {
                // No frame file at all: a plain white border drawn here.
                let w = layout.frameWidth
                for side in [
                    PixelRect(x: outer.x, y: outer.y, width: outer.width, height: w),
                    PixelRect(x: outer.x, y: outer.maxY - w, width: outer.width, height: w),
                    PixelRect(x: outer.x, y: outer.y, width: w, height: outer.height),
                    PixelRect(x: outer.maxX - w, y: outer.y, width: w, height: outer.height),
                ] {
                    var border = Layer(kind: GROUPIE_LAYER_RECT, rect: side, source: nil)
                    border.color = (255, 255, 255, 255)
                    layers.append(border)
                }
            }
            if let sticker, let rect = layout.sticker, let photo = layers.first(where: { $0.kind == GROUPIE_LAYER_PHOTO }) {
                let placed = Self.stickerRect(photo: photo, border: layout.frameWidth, side: rect.width, content: content)
                faces = placed.faces
                drawnSticker = placed.rect
                layers.append(Layer(kind: GROUPIE_LAYER_ASSET, rect: placed.rect, source: sticker))
            }
        }

        // The caption band: venue colour, logo at the start, three lines of text.
        var band = Layer(kind: GROUPIE_LAYER_RECT, rect: layout.caption, source: nil)
        band.color = (Double(theme.red), Double(theme.green), Double(theme.blue), 255)
        layers.append(band)
        let padding = max(4, layout.caption.height / 8)
        var textRect = PixelRect(
            x: layout.caption.x + padding, y: layout.caption.y + padding / 2,
            width: layout.caption.width - 2 * padding, height: layout.caption.height - padding
        )
        // The logo only where it leaves the text room enough (not on a narrow strip).
        if layout.caption.width >= 5 * layout.caption.height, let logo = present(content.logoPath) {
            let side = layout.caption.height - 2 * padding
            layers.append(Layer(kind: GROUPIE_LAYER_ASSET, rect: PixelRect(x: layout.caption.x + padding, y: layout.caption.y + padding, width: side, height: side), source: logo))
            // Keep the text centred on the picture: the same room on both sides.
            textRect.x += side + padding
            textRect.width -= 2 * (side + padding)
        }
        let size = CaptionMarkup.baseSize(bandHeight: layout.caption.height, width: textRect.width)
        var text = Layer(kind: GROUPIE_LAYER_TEXT, rect: textRect, source: CaptionMarkup.markup(content.caption, baseSize: size, width: textRect.width, ink: ink))
        text.font = "\(Self.fontFamily) \(size)"
        layers.append(text)

        var skipped: Int32 = 0, captionPercent: Int32 = 100
        let status = Self.draw(
            layers, width: layout.canvas.width, height: layout.canvas.height, background: paper, output: output, format: format,
            skipped: &skipped, textPercent: &captionPercent
        )
        guard status == 0 else {
            try? fileManager.removeItem(atPath: output)
            throw PhotoProcessor.Failure.processing(PhotoProcessor.lastError())
        }
        return Report(missingAssets: missing, unreadableAssets: Int(skipped), captionPercent: Int(captionPercent), faces: faces, sticker: drawnSticker)
    }

    private static func draw(
        _ layers: [Layer], width: Int, height: Int, background: RGB, output: String, format: CollageFileFormat,
        skipped: inout Int32, textPercent: inout Int32
    ) -> Int32 {
        // The C strings must live until the call returns.
        let sources = layers.map { $0.source.map { strdup($0) } ?? nil }
        let fonts = layers.map { $0.font.map { strdup($0) } ?? nil }
        defer {
            sources.forEach { free($0) }
            fonts.forEach { free($0) }
        }
        var cLayers = layers.enumerated().map { index, layer in
            var c = groupie_layer()
            c.kind = layer.kind
            c.x = Int32(layer.rect.x)
            c.y = Int32(layer.rect.y)
            c.width = Int32(max(1, layer.rect.width))
            c.height = Int32(max(1, layer.rect.height))
            c.border = Int32(layer.border)
            c.border_bottom = Int32(layer.borderBottom)
            c.rotation = layer.rotation
            c.crop = Int32(layer.crop)
            c.focus_x = layer.focus.0
            c.focus_y = layer.focus.1
            c.color = layer.color
            c.source = UnsafePointer(sources[index])
            c.font = UnsafePointer(fonts[index])
            return c
        }
        let back = [Double(background.red), Double(background.green), Double(background.blue)]
        return cLayers.withUnsafeMutableBufferPointer { buffer in
            groupie_vips_collage(
                Int32(width), Int32(height), back, buffer.baseAddress, Int32(buffer.count), output,
                format == .png ? 1 : 0, Int32(jpegQuality), 1, &skipped, &textPercent
            )
        }
    }

    struct Layer {
        var kind: groupie_layer_kind
        var rect: PixelRect
        var source: String?
        var font: String?
        var border = 0
        var borderBottom = 0
        var rotation = 0.0
        var crop = 1
        var focus: (Double, Double) = (-1, -1)
        var color: (Double, Double, Double, Double) = (0, 0, 0, 0)

        init(kind: groupie_layer_kind, rect: PixelRect, source: String?) {
            self.kind = kind
            self.rect = rect
            self.source = source
        }
    }
}

/// An sRGB colour from a theme's `#rrggbb`.
public struct RGB: Sendable, Hashable {
    public var red: Int
    public var green: Int
    public var blue: Int

    public init(red: Int, green: Int, blue: Int) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    public init?(hex: String) {
        let digits = hex.hasPrefix("#") ? String(hex.dropFirst()) : hex
        guard digits.count == 6, let value = Int(digits, radix: 16) else { return nil }
        self.init(red: (value >> 16) & 0xFF, green: (value >> 8) & 0xFF, blue: value & 0xFF)
    }

    /// WCAG relative luminance, 0 (black) to 1 (white).
    public var luminance: Double {
        func channel(_ value: Int) -> Double {
            let c = Double(value) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * channel(red) + 0.7152 * channel(green) + 0.0722 * channel(blue)
    }

    /// White or near-black, whichever contrasts more with this colour.
    public var readableInk: RGB {
        let white = RGB(red: 255, green: 255, blue: 255), dark = RGB(red: 24, green: 24, blue: 24)
        return contrast(with: white) >= contrast(with: dark) ? white : dark
    }

    /// WCAG contrast ratio, 1 to 21.
    public func contrast(with other: RGB) -> Double {
        let (a, b) = (luminance, other.luminance)
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    public var hex: String {
        "#" + [red, green, blue].map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}

/// The caption's Pango markup: sizes follow the band's height; long names are shortened so that
/// every member is named. The lines of names and of the subtitle run in the direction of the
/// caption's language, with each name and each part isolated within them; the title takes the
/// direction of its own first letter.
enum CaptionMarkup {
    /// Pixels of the subtitle's letters: three lines fill the band; a narrow band makes them smaller.
    static func baseSize(bandHeight: Int, width: Int) -> Int { max(8, min(bandHeight / 7, width / 26)) }

    static func markup(_ caption: CollageContent.Caption, baseSize base: Int, width: Int, ink: RGB) -> String {
        let titleSize = base * 3 / 2
        // Pango sizes are in 1024ths of a point; at 72 dpi a point is a pixel.
        let names = shortened(caption.names, budget: max(20, width / (base * 6 / 10)))
        func line(_ text: String) -> String { escape(Bidi.lines(text, language: caption.language)) }
        return "<span foreground=\"\(ink.hex)\">"
            + "<span size=\"\(titleSize * 1024)\" weight=\"bold\">\(escape(caption.title))</span>\n"
            + "<span size=\"\(base * 1024)\">\(line(unbroken(caption.subtitle)))</span>\n"
            + "<span size=\"\(base * 1024)\" style=\"italic\">\(line(names))</span>"
            + "</span>"
    }

    /// The shortest a long name is cut to, before its ellipsis.
    static let shortestName = 8

    /// Every name, joined and each isolated for bidi. When they do not fit in `budget`
    /// characters, the longest are cut, with an ellipsis, to the one length that makes them fit
    /// (never below `shortestName`); what still does not fit is set smaller, never left out.
    static func shortened(_ names: [String], budget: Int) -> String {
        func length(cut: Int) -> Int {
            names.reduce(max(0, names.count - 1) * 2) { $0 + min($1.count, cut + 1) }
        }
        let longest = names.map(\.count).max() ?? 0
        var cut = longest
        while cut > shortestName, length(cut: cut) > budget { cut -= 1 }
        return names.map { Bidi.isolate($0.count > cut + 1 ? $0.prefix(cut) + "…" : $0) }.joined(separator: ", ")
    }

    /// The subtitle (group · venue · day) breaks only between its parts, never inside a date,
    /// and its parts keep their order in either direction.
    static func unbroken(_ subtitle: String) -> String {
        subtitle.components(separatedBy: " · ").map { Bidi.isolate($0.replacingOccurrences(of: " ", with: "\u{00A0}")) }.joined(separator: " · ")
    }

    static func escape(_ text: String) -> String { Markup.escape(text) }
}
