import CPoster
import Foundation

/// A venue's printable start poster: its title and colour, its logo, the QR code of its start
/// page and short instructions in its languages, drawn with cairo and Pango (through the
/// `CPoster` shim) as PDF or PNG.
public struct Poster: Sendable {
    public enum Paper: String, Sendable, CaseIterable {
        case a4, a3

        /// Width and height in points (1/72 inch).
        public var points: (width: Double, height: Double) {
            switch self {
            case .a4: (595.276, 841.890)
            case .a3: (841.890, 1190.551)
            }
        }
    }

    public enum Format: Sendable {
        case pdf
        /// At this many dots per inch.
        case png(dpi: Int)
    }

    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String

        /// The message the shim wrote into `error`, up to its NUL.
        init(shimError error: [CChar]) {
            description = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    public var title: String
    /// One block per language: (BCP 47 tag, text).
    public var instructions: [(language: String, text: String)]
    /// `#rrggbb`.
    public var colour: String
    public var logoPath: String?
    public var url: String

    public init(title: String, instructions: [(language: String, text: String)], colour: String, logoPath: String?, url: String) {
        self.title = title
        self.instructions = instructions
        self.colour = colour
        self.logoPath = logoPath
        self.url = url
    }

    /// Draws the poster to `path`.
    public func render(paper: Paper, format: Format, to path: String) throws {
        let code = try QRCode(url)
        let modules = code.modules.map { UInt8($0 ? 1 : 0) }
        let rgb = Self.components(of: colour)
        var error = [CChar](repeating: 0, count: 256)
        let dpi: Int32
        switch format {
        case .pdf: dpi = 0
        case .png(let value): dpi = Int32(clamping: value)
        }
        let status = withCStrings([title, url] + instructions.map(\.text) + instructions.map(\.language)) { strings in
            let lines = Array(strings[2..<(2 + instructions.count)])
            let languages = Array(strings[(2 + instructions.count)...])
            return lines.withUnsafeBufferPointer { lines in
                languages.withUnsafeBufferPointer { languages in
                    modules.withUnsafeBufferPointer { modules in
                        (logoPath ?? "").withCString { logo in
                            var poster = groupie_poster(
                                width_pt: paper.points.width, height_pt: paper.points.height,
                                title: strings[0], lines: lines.baseAddress, languages: languages.baseAddress,
                                line_count: Int32(instructions.count), red: rgb.0, green: rgb.1, blue: rgb.2,
                                logo_path: logoPath == nil ? nil : logo,
                                qr_modules: modules.baseAddress, qr_width: Int32(code.width), url: strings[1]
                            )
                            return groupie_poster_render(&poster, path, dpi, &error, error.count)
                        }
                    }
                }
            }
        }
        guard status == 0 else {
            throw Failure(shimError: error)
        }
    }

    /// `#rrggbb` as components from 0 to 1; a dark blue for anything else.
    static func components(of colour: String) -> (Double, Double, Double) {
        let hex = colour.hasPrefix("#") ? String(colour.dropFirst()) : colour
        guard hex.count == 6, let value = UInt32(hex, radix: 16) else { return (0.12, 0.36, 0.55) }
        return (Double(value >> 16 & 0xFF) / 255, Double(value >> 8 & 0xFF) / 255, Double(value & 0xFF) / 255)
    }
}

/// Calls `body` with C copies of `strings`, alive for the call.
func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    return body(copies.map { UnsafePointer($0) })
}
