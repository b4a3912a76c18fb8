import CPoster
import GroupieCore
import Foundation

/// A group's recap as one page to keep, drawn with cairo and Pango (through the `CPoster` shim)
/// as PDF or PNG: a band in the venue's colour with the group's name, the venue and the day, each
/// completed mission's title, collage, credits and fact in order, then who did what. The page is
/// as tall as what it holds; a PNG carries no metadata but its pixels.
public struct RecapPage: Sendable {
    public struct Chapter: Sendable {
        public var title: String
        /// The collage as a PNG file; empty for a chapter of questions alone, which has none.
        public var imagePath: String
        public var fact: String?
        /// Who photographed which task, as one line.
        public var credits: String

        public init(title: String, imagePath: String, fact: String?, credits: String) {
            self.title = title
            self.imagePath = imagePath
            self.fact = fact
            self.credits = credits
        }
    }

    public var title: String
    public var subtitle: String
    /// BCP 47 tag of the texts.
    public var language: String
    /// `#rrggbb`.
    public var colour: String
    public var logoPath: String?
    public var factLabel: String
    public var peopleLabel: String
    public var people: [String]
    public var chapters: [Chapter]
    public var footer: String
    /// The printed PDF's pages; none for one page as tall as the recap. A PNG is always one page.
    public var paper: PaperSize?

    public init(
        title: String, subtitle: String, language: String, colour: String, logoPath: String?, factLabel: String, peopleLabel: String,
        people: [String], chapters: [Chapter], footer: String, paper: PaperSize? = nil
    ) {
        self.title = title
        self.subtitle = subtitle
        self.language = language
        self.colour = colour
        self.logoPath = logoPath
        self.factLabel = factLabel
        self.peopleLabel = peopleLabel
        self.people = people
        self.chapters = chapters
        self.footer = footer
        self.paper = paper
    }

    /// Draws the page to `path`.
    public func render(format: Poster.Format, to path: String) throws {
        let rgb = Poster.components(of: colour)
        let dpi: Int32
        switch format {
        case .pdf: dpi = 0
        case .png(let value): dpi = Int32(clamping: value)
        }
        // Every text as one C string, alive for the call: the fixed ones, the people, then four per chapter.
        var texts = [title, subtitle, language, logoPath ?? "", factLabel, peopleLabel, footer] + people
        for chapter in chapters { texts += [chapter.title, chapter.imagePath, chapter.fact ?? "", chapter.credits] }
        var error = [CChar](repeating: 0, count: 256)
        let status = withCStrings(texts) { strings -> Int32 in
            let peopleLines = Array(strings[7..<(7 + people.count)])
            var drawn: [groupie_recap_chapter] = []
            for index in chapters.indices {
                let base = 7 + people.count + index * 4
                drawn.append(groupie_recap_chapter(title: strings[base], image_path: strings[base + 1], fact: strings[base + 2], credits: strings[base + 3]))
            }
            return peopleLines.withUnsafeBufferPointer { peopleLines in
                drawn.withUnsafeBufferPointer { drawn in
                    var recap = groupie_recap(
                        page_width: paper?.points.width ?? 0, page_height: paper?.points.height ?? 0, title: strings[0], subtitle: strings[1], language: strings[2], red: rgb.0, green: rgb.1, blue: rgb.2,
                        logo_path: logoPath == nil ? nil : strings[3], fact_label: strings[4], people_label: strings[5],
                        people: peopleLines.baseAddress, people_count: Int32(people.count),
                        chapters: drawn.baseAddress, chapter_count: Int32(chapters.count), footer: strings[6]
                    )
                    return groupie_recap_render(&recap, path, dpi, &error, error.count)
                }
            }
        }
        guard status == 0 else { throw Poster.Failure(shimError: error) }
    }
}
