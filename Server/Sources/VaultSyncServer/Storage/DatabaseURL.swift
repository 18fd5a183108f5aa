import Foundation

/// A PostgreSQL connection URL: `postgres://user[:password]@host[:port]/database`
/// (`postgresql://` too). The password is never printed.
public struct DatabaseURL: Sendable, CustomStringConvertible {
    /// The server's host name or address.
    public var host: String
    /// The server's port (5432 when the URL names none).
    public var port: Int
    /// The role to connect as.
    public var username: String
    /// The role's password, if the URL has one.
    public var password: String?
    /// The database (the user name when the URL names none, as libpq does).
    public var database: String

    /// Parses `string`, or throws ``SyncServerError/invalidArgument(_:)`` saying what is wrong.
    public init(_ string: String) throws(SyncServerError) {
        guard let components = URLComponents(string: string), let scheme = components.scheme,
              scheme == "postgres" || scheme == "postgresql" else {
            throw .invalidArgument("a database URL looks like postgres://user@127.0.0.1:5432/database")
        }
        guard let host = components.host, !host.isEmpty else { throw .invalidArgument("the database URL names no host") }
        guard let user = components.user, !user.isEmpty else { throw .invalidArgument("the database URL names no user (postgres://USER@host/database)") }
        self.host = host
        port = components.port ?? 5432
        username = user.removingPercentEncoding ?? user
        password = components.password.map { $0.removingPercentEncoding ?? $0 }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? username : path
    }

    public var description: String { "postgres://\(username)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)" }
}
