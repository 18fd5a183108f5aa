import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The HTTP side: Hummingbird on 127.0.0.1, every request handed to a ``StudioRouter``.
public enum StudioServer {
    /// Largest form body read.
    static let maximumBodySize = 1 << 20

    /// Serves until the process is told to stop (SIGINT, SIGTERM). `port` 0
    /// lets the system choose; `onListening` gets the URL with the token once
    /// the server is listening.
    public static func run(router studio: StudioRouter, port: Int, onListening: @escaping @Sendable (String) async -> Void) async throws {
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            let path = request.uri.path
            let query = request.uri.query
            let response = await studio.respond(method: request.method.rawValue, rawPath: path, query: query) {
                var request = request
                let buffer = try await request.collectBody(upTo: maximumBodySize)
                return String(buffer: buffer)
            }
            var headers = HTTPFields()
            headers[.contentType] = response.contentType
            headers[.cacheControl] = "no-store"
            let fixed = [
                "X-Content-Type-Options": "nosniff",
                "Referrer-Policy": "no-referrer",
                "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
            ]
            for (name, value) in fixed.merging(response.headers, uniquingKeysWith: { _, new in new }) {
                if let field = HTTPField.Name(name) { headers[field] = value }
            }
            return Response(status: .init(code: response.status), headers: headers,
                            body: ResponseBody(byteBuffer: ByteBuffer(string: response.body)))
        }
        var logger = Logger(label: "vault-studio") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .warning
        let token = studio.token
        let app = Application(
            responder: responder,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port), serverName: nil),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                await onListening("http://127.0.0.1:\(bound)/\(token)/")
            },
            logger: logger
        )
        try await app.runService()
    }
}
