import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy on loopback that cuts connections: its n-th connection is
/// closed (both ways, at once) after `budgets[n]` bytes have crossed it in
/// either direction; connections past the list run uncut. Cut points spread
/// over a session's bytes land in every step of it — handshake, hello,
/// upload, receipts, download, acknowledgement.
public final class CuttingProxy: @unchecked Sendable {
    /// The port devices connect to.
    public let port: Int
    private let targetPort: Int
    private let listener: Int32
    private let lock = NSLock()
    private var budgets: [Int]
    private var accepted = 0
    private var cuts = 0
    private var stopped = false

    /// A proxy to 127.0.0.1:`targetPort` cutting its first connections after `budgets` bytes.
    public init(targetPort: Int, budgets: [Int]) throws {
        self.targetPort = targetPort
        self.budgets = budgets
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var on: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, listen(listener, 64) == 0 else { throw HarnessError("the proxy cannot listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in acceptLoop() }.start()
    }

    deinit { stop() }

    /// How many connections were cut so far.
    public var cutCount: Int { lock.withLock { cuts } }
    /// How many connections were accepted so far.
    public var connectionCount: Int { lock.withLock { accepted } }

    /// Stops accepting connections.
    public func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        if first { shutdown(listener, Int32(SHUT_RDWR)); close(listener) }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                return
            }
            let budget: Int? = lock.withLock {
                defer { accepted += 1 }
                return accepted < budgets.count ? budgets[accepted] : nil
            }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: targetPort)
            let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            guard connected == 0 else {
                close(client)
                close(upstream)
                continue
            }
            let pair = ConnectionPair(client: client, upstream: upstream, budget: budget) { [weak self] in
                self?.lock.withLock { self?.cuts += 1 }
            }
            Thread { pair.forward(from: client, to: upstream) }.start()
            Thread { pair.forward(from: upstream, to: client) }.start()
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return address
    }
}

/// Both directions of one proxied connection, sharing its byte budget.
private final class ConnectionPair: @unchecked Sendable {
    private let client: Int32
    private let upstream: Int32
    private let lock = NSLock()
    private var remaining: Int?
    private var closedSides = 0
    private var cut = false
    private let onCut: @Sendable () -> Void

    init(client: Int32, upstream: Int32, budget: Int?, onCut: @escaping @Sendable () -> Void) {
        self.client = client
        self.upstream = upstream
        remaining = budget
        self.onCut = onCut
    }

    func forward(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            // Forward up to the budget, then cut both ways.
            let allowed: Int = lock.withLock {
                guard let left = remaining else { return count }
                let take = min(left, count)
                remaining = left - take
                return take
            }
            if allowed > 0, !writeAll(destination, Array(buffer[..<allowed])) { break }
            if allowed < count || lock.withLock({ remaining == 0 }) {
                let first = lock.withLock { () -> Bool in
                    defer { cut = true }
                    return !cut
                }
                if first { onCut() }
                break
            }
        }
        shutdown(client, Int32(SHUT_RDWR))
        shutdown(upstream, Int32(SHUT_RDWR))
        let last = lock.withLock { () -> Bool in
            closedSides += 1
            return closedSides == 2
        }
        if last {
            close(client)
            close(upstream)
        }
    }

    private func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress?.advanced(by: offset), bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }
}
