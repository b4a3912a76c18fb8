import Foundation
import Hummingbird
import Mustache

/// The server's HTML: the staff console's pages and the join page's preview, from the Mustache
/// templates in `Resources/templates/`, read once at start. A template's `{{name}}` escapes
/// the value for HTML, so a visitor's, a member of staff's or a mission file's text reaches a
/// page as text. A template that could write a value unescaped (`{{{name}}}`, `{{&name}}`, a
/// content-type pragma, or new delimiters that would hide one) is refused at start.
struct PageTemplates: Sendable {
    private let library: MustacheLibrary
    /// The names of the templates, each its file's name without `.mustache`.
    let names: Set<String>

    /// The templates built into the server.
    static func load() throws -> PageTemplates {
        guard let folder = Bundle.module.url(forResource: "templates", withExtension: nil) else {
            throw StartupError(description: "The page templates are missing from the build; rebuild Groupie.")
        }
        return try load(folder: folder.path)
    }

    static func load(folder: String) throws -> PageTemplates {
        var library = MustacheLibrary()
        var names: Set<String> = []
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".mustache") }
        for file in files.sorted() {
            let name = String(file.dropLast(".mustache".count))
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            if let tag = unescapedTag(in: text) {
                throw StartupError(description: "The page template \(file) has \(tag), which would write text unescaped; use {{name}}.")
            }
            do {
                try library.register(text, named: name)
            } catch {
                throw StartupError(description: "The page template \(file) cannot be read: \(error)")
            }
            names.insert(name)
        }
        return PageTemplates(library: library, names: names)
    }

    /// The first tag of `text` that would write a value without escaping it, or change the
    /// delimiters or the content type (after which no tag could be checked): nil when none does.
    static func unescapedTag(in text: String) -> String? {
        guard let match = text.firstMatch(of: /\{\{\s*[{&=%][^}]*\}*/) else { return nil }
        return String(match.output)
    }

    /// `view`, a page's model, through the template `name`.
    func render(_ view: some Sendable, _ name: String) -> String {
        guard let html = library.render(view, withTemplate: name) else {
            preconditionFailure("No page template is named \(name); the templates are \(names.sorted()).")
        }
        return html
    }

    /// `view` through the template `name`, as an HTML answer.
    func response(_ view: some Sendable, _ name: String, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "text/html; charset=utf-8"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: render(view, name))))
    }
}
