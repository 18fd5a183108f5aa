import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A page on another origin than the studio's: a one-page HTTP server on a free
/// loopback port (another port is another origin), serving `html` at every path
/// until ``stop()``. It stands for a site the person visits while the studio runs.
final class AttackerPageServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let html: String
    private let lock = NSLock()
    private var stopped = false

    init(html: String) throws {
        self.html = html
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw StudioTestError.message("socket failed") }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else { close(descriptor); throw StudioTestError.message("bind/listen failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = descriptor
        let server = self
        Thread.detachNewThread { server.serve() }
    }

    /// Answers each connection with the page, reading (and ignoring) its request.
    private func serve() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 { return }
            if lock.withLock({ stopped }) { close(client); return }
            var buffer = [UInt8](repeating: 0, count: 8192)
            _ = read(client, &buffer, buffer.count)
            let body = Array(html.utf8)
            let head = "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
            let bytes = Array(head.utf8) + body
            _ = bytes.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
            close(client)
        }
    }

    /// Stops accepting (the listening socket is closed).
    func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        if first {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }

    deinit { stop() }
}
