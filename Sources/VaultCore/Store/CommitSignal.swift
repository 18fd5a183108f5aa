import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - The commit signal
//
// How a process learns, without polling, that another process committed to
// a vault it observes. Realm's answer, kept here: a named pipe beside the file
// (`<vault>.notify`, mode 0600). A process that observes the vault opens it for
// reading and waits on it with a dispatch read source (epoll on Linux, kqueue on
// Apple platforms); a process that commits opens it for writing without
// blocking, writes one byte and closes it. Every observing process is woken by
// the byte's arrival; whoever reads first drains the pipe, and a reader that
// finds it empty was woken all the same. The byte carries nothing — what
// changed is read from the vault itself — so a stray writer (same user: the
// pipe is 0600) can cause spurious refreshes and nothing else.
//
// When nobody observes, the pipe does not exist (or has no reader): a commit
// pays one failed `open` (ENOENT or ENXIO), about a microsecond. The same
// `open` without the byte (`hasListener`) tells a writer whether anyone
// listens at all, so it captures changes for other processes only then. The pipe is
// left in place when observers go, as Realm leaves its `.note` file.
//
// The reader opens the pipe read-write: with no writer at all a read-only FIFO
// reports end-of-file forever, which would spin the read source.

/// Signals commits to other processes through a named pipe beside a vault.
package enum CommitSignal {
    /// The pipe beside the vault at `vaultPath`.
    package static func path(forVault vaultPath: String) -> String { vaultPath + ".notify" }

    /// Whether some process (this one included) listens on the vault's pipe.
    /// Never blocks: one `open` that fails at once when nobody does.
    package static func hasListener(vaultPath: String) -> Bool {
        let descriptor = open(path(forVault: vaultPath), O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        close(descriptor)
        return true
    }

    /// Tells every process waiting on the vault's pipe that a commit happened. Never blocks, never fails.
    package static func ring(vaultPath: String) {
        let descriptor = open(path(forVault: vaultPath), O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return }   // no pipe, or nobody listening
        var byte: UInt8 = 1
        _ = write(descriptor, &byte, 1)        // a full pipe already holds a wake-up: EAGAIN is fine
        close(descriptor)
    }

    /// Listens on a vault's pipe (creating it if needed) and calls `handler` on
    /// a background queue after other processes' commits, until `cancel()`.
    package final class Listener {
        private let source: DispatchSourceRead

        /// - Returns: `nil` when the pipe cannot be made or opened (a read-only
        ///   directory, say): observers then see other processes' commits at refresh().
        package init?(vaultPath: String, handler: @escaping @Sendable () -> Void) {
            let pipePath = CommitSignal.path(forVault: vaultPath)
            if mkfifo(pipePath, 0o600) != 0 && errno != EEXIST { return nil }
            var status = stat()
            guard lstat(pipePath, &status) == 0, (status.st_mode & S_IFMT) == S_IFIFO else { return nil }
            let descriptor = open(pipePath, O_RDWR | O_NONBLOCK | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: DispatchQueue.global(qos: .utility))
            source.setEventHandler {
                var buffer = [UInt8](repeating: 0, count: 256)
                while read(descriptor, &buffer, buffer.count) > 0 {}
                handler()
            }
            source.setCancelHandler { close(descriptor) }
            source.resume()
            self.source = source
        }

        /// Stops listening and closes the pipe's descriptor.
        package func cancel() { source.cancel() }

        deinit { source.cancel() }
    }
}
