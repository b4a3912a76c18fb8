import Foundation

/// A reason the server cannot start, said in one sentence an operator can act on.
public struct StartupError: Error, CustomStringConvertible {
    public var description: String
}

/// Checks the folders before anything is opened, so a mistake is named instead of crashing later.
enum StartupCheck {
    static func requireFolder(_ path: String, role: String, option: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw StartupError(description: "The \(role) folder \(absolute(path)) does not exist; create it or point \(option) at the right folder.")
        }
        guard isDirectory.boolValue else {
            throw StartupError(description: "The \(role) path \(absolute(path)) is a file, not a folder; point \(option) at a folder.")
        }
        guard access(path, R_OK | X_OK) == 0 else {
            throw StartupError(description: "The \(role) folder \(absolute(path)) cannot be read by this user; fix its permissions.")
        }
    }

    /// On SQLite one server serves a data folder: a second would share its database but not its
    /// live events, so phones on either would miss the changes made through the other. Asked
    /// once this instance holds its own lock (`instance`), so that of two started together
    /// neither goes on unseen; several instances need PostgreSQL.
    static func requireAlone(on dataDirectory: String, instance: String) throws {
        guard let other = DataRestore.runningInstances(in: dataDirectory).first(where: { $0 != instance }) else { return }
        throw StartupError(
            description: "Another Groupie server (instance \(other)) is serving the data folder \(absolute(dataDirectory)) on SQLite; stop it first. Several instances on one data folder need PostgreSQL (--database)."
        )
    }

    /// Creates the data folder when it is missing and checks that it can be written.
    static func prepareDataFolder(_ path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw StartupError(description: "The data path \(absolute(path)) is a file, not a folder; point --data at a folder.")
            }
        } else {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw StartupError(description: "The data folder \(absolute(path)) cannot be created (\(reason(error))); create it or point --data elsewhere.")
            }
        }
        guard access(path, W_OK | X_OK) == 0 else {
            throw StartupError(description: "The data folder \(absolute(path)) is not writable by this user; fix its permissions or point --data elsewhere.")
        }
        makePrivate(path)
    }

    /// Visitors' names and photos are readable by the service user only: everything the server
    /// creates from here on is 0600 (folders 0700), and a data folder from before this rule
    /// has its contents made so once.
    static func makePrivate(_ path: String) {
        umask(0o077)
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & 0o077 != 0 else { return }
        _ = chmod(path, 0o700)
        guard let walker = FileManager.default.enumerator(atPath: path) else { return }
        for case let relative as String in walker {
            let full = path + "/" + relative
            var entry = stat()
            guard lstat(full, &entry) == 0 else { continue }
            switch entry.st_mode & S_IFMT {
            case S_IFDIR: _ = chmod(full, 0o700)
            case S_IFREG: _ = chmod(full, 0o600)
            default: continue
            }
        }
    }

    static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }

    static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return nsError.localizedDescription
    }
}
