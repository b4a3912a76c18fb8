import Foundation
import GroupieCore
import GroupieStorage
import Hummingbird

/// The staff console's pages: plain HTML forms that work on an office PC and a tablet alike,
/// with every visitor-supplied text escaped.
enum StaffPages {
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    /// A whole page; `session` adds the signed-in bar with its sign-out form.
    static func page(title: String, session: StaffSession?, status: HTTPResponse.Status = .ok, _ body: String) -> Response {
        var bar = ""
        if let session {
            bar = """
                <header class="bar"><a href="/staff">Groupie staff</a>
                <nav><a href="/staff/audit">Audit log</a>
                <span class="who">\(escape(session.member.email)) · \(session.member.role.rawValue)</span>
                <form method="post" action="/staff/logout">\(csrfField(session))<button type="submit">Sign out</button></form></nav></header>
                """
        }
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title)) · Groupie staff</title><link rel="stylesheet" href="/assets/staff/staff.css"></head>
            <body>\(bar)<main id="main"><h1>\(escape(title))</h1>
            \(body)
            </main></body></html>
            """
        return Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: html))
        )
    }

    static func csrfField(_ session: StaffSession) -> String {
        "<input type=\"hidden\" name=\"csrf\" value=\"\(escape(session.csrfToken))\">"
    }

    static func login(csrf: String, email: String = "", message: String? = nil, status: HTTPResponse.Status = .ok) -> Response {
        let alert = message.map { (text: String) -> String in "<p class=\"alert\" role=\"alert\">\(escape(text))</p>" } ?? ""
        return page(title: "Sign in", session: nil, status: status, """
            \(alert)
            <form method="post" action="/staff/login" class="card">
            <input type="hidden" name="csrf" value="\(escape(csrf))">
            <label for="email">E-mail address</label>
            <input id="email" name="email" type="email" autocomplete="username" required value="\(escape(email))">
            <label for="password">Password</label>
            <input id="password" name="password" type="password" autocomplete="current-password" required>
            <button type="submit">Sign in</button>
            </form>
            """)
    }

    static func venues(_ entries: [(venue: Venue, playing: Int)], session: StaffSession) -> Response {
        let items = entries.map { entry -> String in
            """
            <li><a href="/staff/venues/\(escape(entry.venue.id))">\(escape(name(entry.venue)))</a>
            <span class="muted">\(entry.playing) group\(entry.playing == 1 ? "" : "s") playing</span></li>
            """
        }.joined(separator: "\n")
        return page(title: "Your venues", session: session, entries.isEmpty ? "<p>No venue of yours is being served.</p>" : "<ul class=\"list\">\(items)</ul>")
    }

    static func venue(
        _ venue: Venue, groups: [(group: Group, members: [Member], progress: GroupProgress)], latest: [Photo], session: StaffSession
    ) -> Response {
        let rows = groups.map { entry -> String in
            let done = entry.progress.missions.filter(\.isComplete).count
            let tasks = entry.progress.missions.flatMap(\.tasks)
            return """
                <tr><td><a href="/staff/groups/\(escape(entry.group.id))">\(escape(entry.group.name ?? "Group \(entry.group.joinCode.value)"))</a>\
                \(entry.group.closed == nil ? "" : " <span class=\"tag\">closed</span>")</td>
                <td>\(entry.members.map { (member: Member) -> String in escape(member.name) }.joined(separator: ", "))</td>
                <td>\(tasks.filter(\.isDone).count) of \(tasks.count) tasks, \(done) of \(entry.progress.missions.count) missions</td>
                <td>\(Timestamp.string(entry.group.createdAt))</td></tr>
                """
        }.joined(separator: "\n")
        let table = groups.isEmpty ? "<p>No group is playing now.</p>" : """
            <table><thead><tr><th scope="col">Group</th><th scope="col">Members</th><th scope="col">Progress</th><th scope="col">Started</th></tr></thead>
            <tbody>\(rows)</tbody></table>
            """
        return page(
            title: name(venue), session: session,
            """
            <p><a href="/staff/venues/\(escape(venue.id))/numbers">Numbers: missions completed and abandoned</a>\
            \(session.member.may(.editMissions, at: venue.id) ? " · <a href=\"/staff/venues/\(escape(venue.id))/missions\">Mission file and previews</a>" : "")</p>
            <p>Poster for the entrance: <a href="/staff/venues/\(escape(venue.id))/poster.pdf?paper=a4">A4 PDF</a> ·
            <a href="/staff/venues/\(escape(venue.id))/poster.pdf?paper=a3">A3 PDF</a> ·
            <a href="/staff/venues/\(escape(venue.id))/poster.png?paper=a4">A4 PNG</a></p>
            \(session.member.may(.moderate, at: venue.id) ? """
            <form method="post" action="/staff/venues/\(escape(venue.id))/cards" class="card">\(csrfField(session))
            <p><strong>Table cards for a class:</strong> groups made now, one card each to print and hand out.</p>
            <label>Name of the groups <input name="name" maxlength="30" placeholder="Table"></label>
            <label>How many <input name="count" type="number" min="1" max="40" value="6" required></label>
            <button type="submit">Make the groups and their cards (PDF)</button></form>
            """ : "")
            <h2>Groups playing now</h2>
            """ + table + """
            <h2>Latest photos</h2>
            \(latest.isEmpty ? "<p>No photos yet.</p>" : "<ul class=\"latest\">" + latest.map { photo -> String in
                "<li><a href=\"/staff/groups/\(escape(photo.groupId))#photo-\(escape(photo.id))\"><img src=\"/staff/photos/\(escape(photo.id))/thumb\" alt=\"Photo by \(escape(photo.photographerName))\" width=\"120\"></a></li>"
            }.joined() + "</ul>")
            <p class="muted" id="live-status" role="status">This page updates itself as groups play.</p>
            <script src="/assets/staff/live.js" data-events="/staff/venues/\(escape(venue.id))/events" defer></script>
            """
        )
    }

    static func group(_ view: GroupieDatabase.StaffGroupView, venue: Venue?, session: StaffSession) -> Response {
        let mayModerate = session.member.may(.moderate, at: view.group.venueId)
        let members = view.members.map { (member: Member) -> String in "<li>\(escape(member.name))\(member.isCreator ? " <span class=\"muted\">(started the group)</span>" : "")</li>" }
            .joined()
        func photoCard(_ photo: Photo, hidden: (reason: String, at: Date)?) -> String {
            let task = [photo.missionId, photo.taskId].compactMap { $0 }.joined(separator: " / ")
            var actions = ""
            if mayModerate {
                let verb = hidden == nil ? "hide" : "restore"
                actions = """
                    <form method="post" action="/staff/photos/\(escape(photo.id))/\(verb)">\(csrfField(session))
                    \(hidden == nil ? "<label>Reason <input name=\"reason\" maxlength=\"200\" required></label>" : "")
                    <button type="submit">\(hidden == nil ? "Hide" : "Restore")</button></form>
                    <form method="post" action="/staff/photos/\(escape(photo.id))/delete">\(csrfField(session))
                    <label>Reason <input name="reason" maxlength="200" required></label><button type="submit" class="danger">Delete</button></form>
                    """
            }
            return """
                <li class="photo\(hidden == nil ? "" : " hidden")" id="photo-\(escape(photo.id))">
                <img src="/staff/photos/\(escape(photo.id))/thumb" alt="Photo by \(escape(photo.photographerName))" width="160">
                <p>\(escape(photo.photographerName))\(task.isEmpty ? "" : " · \(escape(task))")<br><span class="muted">\(Timestamp.string(photo.createdAt))</span></p>
                \(hidden.map { (why: (reason: String, at: Date)) -> String in "<p class=\"tag\">Hidden: \(escape(why.reason))</p>" } ?? "")
                \(actions)</li>
                """
        }
        let photos = view.photos.map { photo -> String in photoCard(photo, hidden: nil) }.joined(separator: "\n")
        let hidden = view.hidden.map { entry -> String in photoCard(entry.photo, hidden: (entry.reason, entry.at)) }.joined(separator: "\n")
        var close = ""
        if let closed = view.group.closed {
            close = "<p class=\"alert\">Closed \(Timestamp.string(closed.at)): \(escape(closed.reason))</p>"
        } else if mayModerate {
            close = """
                <form method="post" action="/staff/groups/\(escape(view.group.id))/close" class="card">\(csrfField(session))
                <label>Reason for closing the group <input name="reason" maxlength="200" required></label>
                <button type="submit" class="danger">Close group</button></form>
                """
        }
        let title = view.group.name ?? "Group \(view.group.joinCode.value)"
        return page(title: title, session: session, """
            <p><a href="/staff/venues/\(escape(view.group.venueId))">\(escape(venue.map(name) ?? view.group.venueId))</a></p>
            <h2>Members</h2><ul>\(members.isEmpty ? "<li>No one is in the group now.</li>" : members)</ul>
            \(close)
            <h2>Album</h2>\(photos.isEmpty ? "<p>No photos yet.</p>" : "<ul class=\"photos\">\(photos)</ul>")
            \(hidden.isEmpty ? "" : "<h2>Hidden photos</h2><ul class=\"photos\">\(hidden)</ul>")
            """)
    }

    static func audit(_ entries: [GroupieDatabase.AuditEntry], session: StaffSession) -> Response {
        let rows = entries.map { entry -> String in
            """
            <tr><td>\(Timestamp.string(entry.at))</td><td>\(escape(entry.staffEmail))</td><td>\(escape(entry.venueId ?? ""))</td>
            <td>\(escape(entry.action))</td><td>\(escape(entry.subject ?? ""))</td><td>\(escape(entry.reason ?? ""))</td></tr>
            """
        }.joined(separator: "\n")
        return page(title: "Audit log", session: session, entries.isEmpty ? "<p>Nothing yet.</p>" : """
            <table><thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Venue</th><th scope="col">What</th>
            <th scope="col">Subject</th><th scope="col">Reason</th></tr></thead><tbody>\(rows)</tbody></table>
            """)
    }

    static func name(_ venue: Venue) -> String {
        venue.name.resolved(language: "en", fallback: venue.defaultLanguage)
    }
}
