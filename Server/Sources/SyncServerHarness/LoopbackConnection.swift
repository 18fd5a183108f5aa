import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to a port on 127.0.0.1, for sending what a real client never
/// would (a half-written request, a body on an upgrade, nothing at all) and watching
/// what the server does with it. Closed on deinit.
public final class LoopbackConnection: @unchecked Sendable {
    private var descriptor: Int32

    /// Connects to 127.0.0.1:`port`, from `source` (another loopback address, such as
    /// 127.0.0.2, makes another client address for the server).
    public init(port: Int, from source: String? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket failed (errno \(errno))") }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                Glibc.close(descriptor)
                throw HarnessError("bind to \(source) failed (errno \(errno))")
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(descriptor)
            throw HarnessError("connect to 127.0.0.1:\(port) failed (errno \(errno))")
        }
    }

    deinit { close() }

    /// Writes `text` (false when the server has closed the connection).
    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Writes `bytes` (false when the server has closed the connection).
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Reads until the server closes the connection or `timeout` passes; returns what arrived
    /// (as text) and whether the server closed it.
    public func read(timeout: Duration) -> (text: String, closed: Bool) {
        let (bytes, closed) = readBytes(timeout: timeout)
        return (String(decoding: bytes, as: UTF8.self), closed)
    }

    /// Reads until the server closes the connection or `timeout` passes; returns the bytes
    /// that arrived and whether the server closed it.
    public func readBytes(timeout: Duration) -> (bytes: [UInt8], closed: Bool) {
        let deadline = ContinuousClock.now + timeout
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while ContinuousClock.now < deadline {
            let remaining = ContinuousClock.now.duration(to: deadline)
            let milliseconds = Int32(clamping: remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000)
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, max(1, milliseconds)) > 0 else { continue }
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { return (received, true) }
            received += buffer[..<count]
        }
        return (received, false)
    }

    /// Closes it.
    public func close() {
        if descriptor >= 0 {
            Glibc.close(descriptor)
            descriptor = -1
        }
    }
}
