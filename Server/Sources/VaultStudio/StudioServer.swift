import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The HTTP side: Hummingbird on 127.0.0.1, every request handed to a ``StudioRouter``.
public enum StudioServer {
    /// Largest form body read; a larger one is answered 413 without being read whole.
    public static let maximumBodySize = 1 << 20

    /// Headers on every response. The policy allows the page's own inline style and
    /// nothing else: no script, no framing by any page (`frame-ancestors 'none'`,
    /// and `X-Frame-Options` for browsers that predate it), forms posting only here.
    static let fixedHeaders = [
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin",
        "X-Frame-Options": "DENY",
        "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    ]

    /// Serves until the process is told to stop (SIGINT, SIGTERM). `port` 0
    /// lets the system choose; `onListening` gets the URL with the token once
    /// the server is listening.
    public static func run(router studio: StudioRouter, port: Int, onListening: @escaping @Sendable (String) async -> Void) async throws {
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            var headers: [String: String] = [:]
            for field in request.headers {
                let name = field.name.canonicalName
                headers[name] = headers[name].map { $0 + ", " + field.value } ?? field.value
            }
            // HTTP/2-style pseudo-header: Hummingbird keeps the request's Host as the authority.
            if headers["host"] == nil, let authority = request.head.authority { headers["host"] = authority }
            let declaredLength = headers["content-length"].flatMap { Int($0) }
            let body: @Sendable () async throws -> String = {
                if let declaredLength, declaredLength > maximumBodySize { throw StudioError.payloadTooLarge }
                var request = request
                do {
                    let buffer = try await request.collectBody(upTo: maximumBodySize)
                    return String(buffer: buffer)
                } catch is NIOTooManyBytesError {
                    throw StudioError.payloadTooLarge
                }
            }
            let response = await studio.respond(to: StudioRequest(method: request.method.rawValue, rawPath: request.uri.path,
                                                                  query: request.uri.query, headers: headers, body: body))
            var fields = HTTPFields()
            fields[.contentType] = response.contentType
            fields[.cacheControl] = "no-store"
            for (name, value) in fixedHeaders.merging(response.headers, uniquingKeysWith: { _, new in new }) {
                if let field = HTTPField.Name(name) { fields[field] = value }
            }
            return Response(status: .init(code: response.status), headers: fields,
                            body: ResponseBody(byteBuffer: ByteBuffer(string: response.body)))
        }
        var logger = Logger(label: "vault-studio") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .warning
        let session = studio.session
        let app = Application(
            responder: responder,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port), serverName: nil),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                session.port = bound
                await onListening("http://127.0.0.1:\(bound)/\(session.token)/")
            },
            logger: logger
        )
        try await app.runService()
    }
}
