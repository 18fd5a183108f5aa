#if !canImport(Darwin)
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Blocking TCP for ``POSIXWebSocket``: connect with a timeout, read, write all.
enum TCPConnection {
    /// Seconds a read may wait for data before the peer is taken for dead.
    static let readTimeoutSeconds = 60

    /// A connected socket to `host`:`port` (no Nagle delay, reads time out).
    static func open(host: String, port: Int, timeoutSeconds: Int) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw SyncSessionError.connectionFailed("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            let descriptor = socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
            guard descriptor >= 0 else { continue }
            if connect(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen, timeoutSeconds: timeoutSeconds, error: &lastError) {
                var on: Int32 = 1
                setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
                var timeout = timeval(tv_sec: readTimeoutSeconds, tv_usec: 0)
                setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                return descriptor
            }
            Glibc.close(descriptor)
        }
        throw SyncSessionError.connectionFailed("cannot connect to \(host):\(port): \(lastError)")
    }

    private static func connect(_ descriptor: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t,
                                timeoutSeconds: Int, error: inout String) -> Bool {
        let flags = fcntl(descriptor, F_GETFL, 0)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        defer { _ = fcntl(descriptor, F_SETFL, flags) }
        if Glibc.connect(descriptor, address, length) == 0 { return true }
        guard errno == EINPROGRESS else {
            error = String(cString: strerror(errno))
            return false
        }
        var pending = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        guard poll(&pending, 1, Int32(timeoutSeconds * 1000)) == 1 else {
            error = "timed out after \(timeoutSeconds) s"
            return false
        }
        var socketError: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &socketError, &size)
        guard socketError == 0 else {
            error = String(cString: strerror(socketError))
            return false
        }
        return true
    }

    /// Up to `count` bytes; empty at the end of the stream.
    static func read(_ descriptor: Int32, upTo count: Int) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        while true {
            let received = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, count, 0) }
            if received >= 0 {
                buffer.removeSubrange(received...)
                return buffer
            }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK {
                throw SyncSessionError.connectionFailed("nothing heard from the server for \(readTimeoutSeconds) s")
            }
            throw SyncSessionError.connectionFailed("reading from the server failed: \(String(cString: strerror(errno)))")
        }
    }

    /// Writes every byte of `bytes` (no SIGPIPE on a closed peer).
    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress?.advanced(by: offset), bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent > 0 {
                offset += sent
            } else if sent < 0, errno == EINTR {
                continue
            } else {
                throw SyncSessionError.connectionFailed("writing to the server failed: \(String(cString: strerror(errno)))")
            }
        }
    }
}
#endif
