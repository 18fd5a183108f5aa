import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Checks what a vault path names before anything opens or reads it: opening a
/// pipe for reading waits for a writer forever, and a directory yields SQLite's
/// "unable to open database file". Both get a message that says what is wrong.
enum VaultPathCheck {
    /// Throws unless `path` is a regular file or does not exist (symbolic links followed).
    static func requireRegularFileOrAbsent(_ path: String) throws(VaultError) {
        var status = stat()
        guard stat(path, &status) == 0 else { return }   // absent (or unreadable: the open reports it)
        switch status.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: throw VaultError.io(path: path, detail: "is a directory, not a vault file")
        default: throw VaultError.io(path: path, detail: "is not a regular file (a pipe, device or socket), so it cannot be a vault")
        }
    }
}
