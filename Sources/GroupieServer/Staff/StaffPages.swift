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
            <title>\(escape(title)) · Groupie staff</title><link rel="icon" href="/assets/web/icon.svg"><link rel="stylesheet" href="/assets/staff/staff.css"></head>
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
        _ venue: Venue, groups: [(group: Group, members: [Member], progress: GroupProgress)], latest: [Photo], waiting: Int,
        session: StaffSession
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
            \(venue.review == .beforeSharing || waiting > 0 ? """
            <p class="card"><a href="/staff/venues/\(escape(venue.id))/review">Review queue</a>: \(waitingForReview(waiting))</p>
            """ : "")
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

    static func group(_ view: StaffGroupView, venue: Venue?, session: StaffSession) -> Response {
        let mayModerate = session.member.may(.moderate, at: view.group.venueId)
        let members = view.members.map { (member: Member) -> String in "<li>\(escape(member.name))\(member.isCreator ? " <span class=\"muted\">(started the group)</span>" : "")</li>" }
            .joined()
        func photoCard(_ photo: Photo, hidden: (reason: String, at: Date, held: Bool)?) -> String {
            let task = [photo.missionId, photo.taskId].compactMap { $0 }.joined(separator: " / ")
            var actions = ""
            if mayModerate {
                if hidden?.held == true {
                    actions = """
                        <form method="post" action="/staff/photos/\(escape(photo.id))/restore">\(csrfField(session))
                        <button type="submit">Share with the group</button></form>
                        <form method="post" action="/staff/photos/\(escape(photo.id))/hide">\(csrfField(session))
                        <label>Reason <input name="reason" maxlength="200" required></label><button type="submit">Keep hidden</button></form>
                        """
                } else {
                    let verb = hidden == nil ? "hide" : "restore"
                    actions = """
                        <form method="post" action="/staff/photos/\(escape(photo.id))/\(verb)">\(csrfField(session))
                        \(hidden == nil ? "<label>Reason <input name=\"reason\" maxlength=\"200\" required></label>" : "")
                        <button type="submit">\(hidden == nil ? "Hide" : "Restore")</button></form>
                        """
                }
                actions += """
                    <form method="post" action="/staff/photos/\(escape(photo.id))/delete">\(csrfField(session))
                    <label>Reason <input name="reason" maxlength="200" required></label><button type="submit" class="danger">Delete</button></form>
                    """
            }
            return """
                <li class="photo\(hidden == nil ? "" : " hidden")" id="photo-\(escape(photo.id))">
                <img src="/staff/photos/\(escape(photo.id))/thumb" alt="Photo by \(escape(photo.photographerName))" width="160">
                <p>\(escape(photo.photographerName))\(task.isEmpty ? "" : " · \(escape(task))")<br><span class="muted">\(Timestamp.string(photo.createdAt))</span></p>
                \(hidden.map { (why: (reason: String, at: Date, held: Bool)) -> String in
                    why.held ? "<p class=\"tag\">Waiting for review</p>" : "<p class=\"tag\">Hidden: \(escape(why.reason))</p>"
                } ?? "")
                \(actions)</li>
                """
        }
        let photos = view.photos.map { photo -> String in photoCard(photo, hidden: nil) }.joined(separator: "\n")
        let hidden = view.hidden.map { entry -> String in photoCard(entry.photo, hidden: (entry.reason, entry.at, entry.held)) }.joined(separator: "\n")
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
            \(hidden.isEmpty ? "" : "<h2>\(view.hidden.contains { $0.held } ? "Hidden and waiting photos" : "Hidden photos")</h2><ul class=\"photos\">\(hidden)</ul>")
            """)
    }

    /// "No photo waits for review.", "1 photo waits for review.", "3 photos wait for review."
    /// (review.js says the same as it counts down).
    static func waitingForReview(_ count: Int) -> String {
        switch count {
        case 0: "No photo waits for review."
        case 1: "1 photo waits for review."
        default: "\(count) photos wait for review."
        }
    }

    /// The review queue: the oldest waiting photo first, each with its share and hide forms.
    /// `review.js` adds the keys (S share, H hide, J and K or the arrows to move) and sends the
    /// forms without leaving the page; without it, each form comes back here.
    static func review(_ venue: Venue, photos: [Photo], total: Int, session: StaffSession) -> Response {
        let mayModerate = session.member.may(.moderate, at: venue.id)
        let items = photos.map { photo -> String in
            let task = [photo.missionId, photo.taskId].compactMap { $0 }.joined(separator: " / ")
            let forms = mayModerate ? """
                <form method="post" action="/staff/photos/\(escape(photo.id))/restore" class="share">\(csrfField(session))
                <input type="hidden" name="next" value="review"><button type="submit">Share with the group <kbd>S</kbd></button></form>
                <form method="post" action="/staff/photos/\(escape(photo.id))/hide" class="hide">\(csrfField(session))
                <input type="hidden" name="next" value="review">
                <label>Reason <input name="reason" maxlength="200" required value="Not suitable to share"></label>
                <button type="submit">Keep hidden <kbd>H</kbd></button></form>
                """ : ""
            return """
                <li class="held" tabindex="-1" id="held-\(escape(photo.id))">
                <img src="/staff/photos/\(escape(photo.id))/display" alt="Photo by \(escape(photo.photographerName))">
                <p>\(escape(photo.photographerName))\(task.isEmpty ? " · free photo" : " · \(escape(task))") ·
                <a href="/staff/groups/\(escape(photo.groupId))">their group</a><br>
                <span class="muted">\(Timestamp.string(photo.createdAt))</span></p>
                \(forms)</li>
                """
        }.joined(separator: "\n")
        let setting = venue.review == .beforeSharing
            ? "New photos at this venue wait here until a member of staff shares them (<code>review: before_sharing</code> in its mission file)."
            : "This venue's mission file no longer holds new photos for review; these were held before."
        return page(title: "Review queue · \(name(venue))", session: session, """
            <p><a href="/staff/venues/\(escape(venue.id))">\(escape(name(venue)))</a></p>
            <p>\(setting)</p>
            <p id="queue-count" role="status" data-total="\(total)">\(waitingForReview(total))\
            \(total > photos.count ? " The oldest \(photos.count) are here." : "")</p>
            \(mayModerate && !photos.isEmpty ? "<p class=\"muted\" id=\"queue-keys\">Keys: <kbd>S</kbd> share · <kbd>H</kbd> keep hidden · <kbd>J</kbd>/<kbd>↓</kbd> next · <kbd>K</kbd>/<kbd>↑</kbd> previous.</p>" : "")
            <ol class="queue" id="queue">\(items)</ol>
            <p><a href="/staff/venues/\(escape(venue.id))/review">Look for new photos</a></p>
            <script src="/assets/staff/review.js" defer></script>
            """)
    }

    static func audit(_ entries: [AuditEntry], session: StaffSession) -> Response {
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
