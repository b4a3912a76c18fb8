// A Hummingbird server with one route and nothing else: no middleware, no database, no
// request context of Groupie's. `make bench` measures it beside Groupie's group read, as the
// floor that Hummingbird and SwiftNIO reach on the machine before Groupie does anything.
//
//   bare-route PORT     serves `GET /` ("ok") on 127.0.0.1:PORT until stopped
import Foundation
import Hummingbird

guard CommandLine.arguments.count == 2, let port = Int(CommandLine.arguments[1]) else {
    print("usage: bare-route PORT")
    exit(2)
}
let router = Router()
router.get("/") { _, _ in "ok" }
let application = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await application.runService()
