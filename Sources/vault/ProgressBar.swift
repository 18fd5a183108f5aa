import Foundation

/// A one-line progress bar on standard error, shown only when standard error is a
/// terminal (and the command does not print JSON): long work says how far it is, and
/// scripts see nothing.
final class ProgressBar {
    private let unit: String
    private var lastPercent = -1

    private init(unit: String) { self.unit = unit }

    /// A bar when standard error is a terminal and `quiet` is false; nil otherwise.
    static func onTerminal(unless quiet: Bool, unit: String) -> ProgressBar? {
        guard !quiet, isatty(STDERR_FILENO) != 0 else { return nil }
        return ProgressBar(unit: unit)
    }

    /// Redraws the bar when the percentage changed.
    func update(_ done: Int, of total: Int) {
        let percent = total <= 0 ? 100 : min(100, Int(Double(done) / Double(total) * 100))
        guard percent != lastPercent else { return }
        lastPercent = percent
        let filled = percent / 4
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: 25 - filled)
        FileHandle.standardError.write(Data("\r[\(bar)] \(percent)% \(done)/\(total) \(unit)".utf8))
    }

    /// Ends the bar's line.
    func finish() {
        if lastPercent >= 0 { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
