import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A WebSocket carrying sync messages (binary), whichever implementation the platform has.
protocol SyncSocket: AnyObject, Sendable {
    /// Sends one binary message.
    func send(_ message: [UInt8]) async throws
    /// The next binary message; throws ``SyncSessionError`` once the connection is closed.
    func receive() async throws -> [UInt8]
    /// Closes the connection (a pending `receive` throws).
    func close()
}

/// Opens the sync WebSocket of a server: Foundation's `URLSessionWebSocketTask`
/// on Apple platforms; elsewhere a small RFC 6455 client over a POSIX socket
/// (FoundationNetworking's WebSocket support needs a libcurl built with
/// WebSockets, which Debian's is not), for `ws://` servers.
enum SyncSocketConnector {
    /// The WebSocket URL of `serverURL`: its scheme made ws/wss, `/v1/sync` appended to its path.
    static func webSocketURL(for serverURL: URL) throws(SyncSessionError) -> URL {
        guard var components = URLComponents(url: serverURL, resolvingAgainstBaseURL: false),
              let scheme = components.scheme?.lowercased(), ["http", "https", "ws", "wss"].contains(scheme),
              components.host?.isEmpty == false else {
            throw .invalidConfiguration("serverURL must be an http:// or https:// URL with a host, not \(serverURL.absoluteString)")
        }
        components.scheme = (scheme == "https" || scheme == "wss") ? "wss" : "ws"
        let base = components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path
        components.path = base + "/v1/sync"
        components.query = nil
        guard let url = components.url else { throw .invalidConfiguration("serverURL \(serverURL.absoluteString) cannot be made a WebSocket URL") }
        return url
    }

    static func connect(serverURL: URL, token: String, maxMessageBytes: Int) async throws -> any SyncSocket {
        let url = try webSocketURL(for: serverURL)
        #if canImport(Darwin)
        return try await URLSessionSyncSocket.connect(url: url, token: token, maxMessageBytes: maxMessageBytes)
        #else
        guard url.scheme == "ws" else {
            throw SyncSessionError.invalidConfiguration("this platform's sync client connects to http:// servers only (put a TLS-terminating proxy on the device's side, or use an Apple platform for https://)")
        }
        return try await POSIXWebSocket.connect(url: url, token: token, maxMessageBytes: maxMessageBytes)
        #endif
    }
}

#if canImport(Darwin)
/// Foundation's WebSocket task, behind ``SyncSocket``.
final class URLSessionSyncSocket: SyncSocket, @unchecked Sendable {
    private let task: URLSessionWebSocketTask
    private let session: URLSession
    /// The upgrade's URL and token, to ask the plain `GET` why an upgrade was refused.
    private let url: URL
    private let token: String

    private init(task: URLSessionWebSocketTask, session: URLSession, url: URL, token: String) {
        self.task = task
        self.session = session
        self.url = url
        self.token = token
    }

    static func connect(url: URL, token: String, maxMessageBytes: Int) async throws -> URLSessionSyncSocket {
        var request = URLRequest(url: url)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.timeoutInterval = 10
        let session = URLSession(configuration: .ephemeral)
        let task = session.webSocketTask(with: request)
        task.maximumMessageSize = maxMessageBytes
        task.resume()
        return URLSessionSyncSocket(task: task, session: session, url: url, token: token)
    }

    func send(_ message: [UInt8]) async throws {
        do { try await task.send(.data(Data(message))) } catch { throw await closedError(error) }
    }

    func receive() async throws -> [UInt8] {
        do {
            switch try await task.receive() {
            case .data(let data): return [UInt8](data)
            case .string: throw SyncSessionError.connectionFailed("the server sent a text message")
            @unknown default: throw SyncSessionError.connectionFailed("the server sent an unknown message")
            }
        } catch let error as SyncSessionError { throw error } catch { throw await closedError(error) }
    }

    func close() {
        task.cancel(with: .normalClosure, reason: nil)
        session.invalidateAndCancel()
    }

    private func closedError(_ error: any Error) async -> SyncSessionError {
        if task.closeCode != .invalid {
            let reason = task.closeReason.flatMap { String(data: $0, encoding: .utf8) } ?? ""
            return SyncSessionError.closed(code: UInt16(task.closeCode.rawValue), reason: reason)
        }
        if let response = task.response as? HTTPURLResponse {
            // The sync server refuses an upgrade it will not accept with a bare 400 (its WebSocket
            // layer says no more); its plain `GET` of the same path says why: 401 for an unknown or
            // revoked token, which is final — without asking, a revoked device would retry forever.
            switch response.statusCode {
            case 401: return .unauthorized("unknown or revoked device token")
            case 400 where await refusesToken(): return .unauthorized("unknown or revoked device token")
            case 426, 404, 405:
                return .unsupportedProtocol("the server at this URL does not offer the sync WebSocket (HTTP \(response.statusCode))")
            default: break
            }
        }
        return .connectionFailed(error.localizedDescription)
    }

    /// Whether a plain `GET` of the sync path with the token is answered 401 (the token is refused).
    private func refusesToken() async -> Bool {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return false }
        components.scheme = components.scheme == "wss" ? "https" : "http"
        guard let plainURL = components.url else { return false }
        var request = URLRequest(url: plainURL)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.timeoutInterval = 10
        guard let (_, response) = try? await session.data(for: request) else { return false }
        return (response as? HTTPURLResponse)?.statusCode == 401
    }
}
#endif
