import CPoster
import Foundation

/// Table cards for groups made in advance: four to an A4 page, each with the group's name, the
/// QR code of its join page and its code, for a class teacher to hand out one per table.
public struct TableCards: Sendable {
    public struct Card: Sendable {
        public var groupName: String
        public var code: String
        public var url: String

        public init(groupName: String, code: String, url: String) {
            self.groupName = groupName
            self.code = code
            self.url = url
        }
    }

    public var venueName: String
    /// `#rrggbb`.
    public var colour: String
    public var logoPath: String?
    public var instruction: (language: String, text: String)
    public var cards: [Card]

    public init(venueName: String, colour: String, logoPath: String?, instruction: (language: String, text: String), cards: [Card]) {
        self.venueName = venueName
        self.colour = colour
        self.logoPath = logoPath
        self.instruction = instruction
        self.cards = cards
    }

    /// Draws the cards to `path` as PDF.
    public func render(to path: String) throws {
        let codes = try cards.map { try QRCode($0.url) }
        let modules = codes.map { $0.modules.map { UInt8($0 ? 1 : 0) } }
        let rgb = Poster.components(of: colour)
        var error = [CChar](repeating: 0, count: 256)
        let texts = [venueName, instruction.text, instruction.language, logoPath ?? ""] + cards.flatMap { [$0.groupName, $0.code, $0.url] }
        let copies = texts.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let modulePointers = modules.map { bytes -> UnsafeMutablePointer<UInt8> in
            let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, bytes.count))
            pointer.initialize(from: bytes, count: bytes.count)
            return pointer
        }
        defer { modulePointers.forEach { $0.deallocate() } }
        let entries = cards.indices.map { index in
            groupie_card(
                group_name: copies[4 + 3 * index], code: copies[5 + 3 * index], url: copies[6 + 3 * index],
                qr_modules: modulePointers[index], qr_width: Int32(codes[index].width)
            )
        }
        let status = entries.withUnsafeBufferPointer { entries in
            var sheet = groupie_cards(
                venue_name: copies[0], red: rgb.0, green: rgb.1, blue: rgb.2, logo_path: logoPath == nil ? nil : UnsafePointer(copies[3]),
                instruction: copies[1], language: copies[2], cards: entries.baseAddress, card_count: Int32(entries.count)
            )
            return groupie_cards_render(&sheet, path, &error, error.count)
        }
        guard status == 0 else {
            throw Poster.Failure(shimError: error)
        }
    }
}
