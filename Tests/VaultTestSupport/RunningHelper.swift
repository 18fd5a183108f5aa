import Foundation
import VaultCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The test helper running as a child process, its output read line by line
/// as it is printed, so that a test can kill it at a moment chosen relative to
/// its progress rather than to the wall clock.
///
/// Kill tests that sleep a fixed random time after launch measure the
/// machine's load as much as the code: on a busy CI machine a child may not
/// have reached its loop by then. Waiting for a line first keeps the kill
/// point random within the work while every round still exercises it.
public final class RunningHelper {
    private let process = Process()
    private let output = Pipe()
    private let lines = Locked<[String]>([])
    private let readerFinished = DispatchSemaphore(value: 0)

    /// Starts the helper with `arguments`, writing `input` and a newline to its
    /// standard input (the key, never on the command line) if given.
    public init(_ arguments: [String], input: String? = nil) throws {
        process.executableURL = try helperExecutable()
        process.arguments = arguments
        process.standardOutput = output
        let stdin = Pipe()
        process.standardInput = stdin
        try process.run()
        if let input {
            stdin.fileHandleForWriting.write(Data((input + "\n").utf8))
        }
        try stdin.fileHandleForWriting.close()

        let descriptor = output.fileHandleForReading.fileDescriptor
        let lines = self.lines, finished = readerFinished
        Thread {
            var pending: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                pending.append(contentsOf: chunk[..<count])
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    lines.withLock { $0.append(line) }
                }
            }
            finished.signal()
        }.start()
    }

    /// Waits until the helper has printed a line starting with `prefix`, has
    /// exited, or `timeout` seconds have passed; returns whether the line came.
    public func waitForLine(startingWith prefix: String, timeout: Double) -> Bool {
        let deadline = DispatchTime.now() + timeout
        while DispatchTime.now() < deadline {
            if lines.withLock({ $0.contains { $0.hasPrefix(prefix) } }) { return true }
            if !process.isRunning { break }
            usleep(1_000)
        }
        return lines.withLock { $0.contains { $0.hasPrefix(prefix) } }
    }

    /// Sends SIGKILL, waits for the process and for the last of its output;
    /// returns how it ended (`.uncaughtSignal` unless it had already exited).
    @discardableResult
    public func kill() -> Process.TerminationReason {
        if process.isRunning {
            sendKillSignal(to: process.processIdentifier)
        }
        process.waitUntilExit()
        readerFinished.wait()
        return process.terminationReason
    }

    /// Kills the helper at a random moment of round `round` of a kill test.
    /// One round in four kills blind, `blindDelay` microseconds (drawn at
    /// random) after launch: often during start-up or recovery. The others
    /// first wait, up to 60 s, for a line starting with `progressPrefix` (so a
    /// loaded machine cannot turn them into kills at launch), then kill
    /// `delay` microseconds (drawn at random) later.
    /// - Returns: whether the awaited line came (true in blind rounds), and how the process ended.
    public func kill(inRound round: Int, afterLineStartingWith progressPrefix: String,
                     delay: Range<Int>, blindDelay: Range<Int>) -> (progressed: Bool, termination: Process.TerminationReason) {
        var progressed = true
        if round % 4 != 0 {
            progressed = waitForLine(startingWith: progressPrefix, timeout: 60)
            usleep(UInt32(Int.random(in: delay)))
        } else {
            usleep(UInt32(Int.random(in: blindDelay)))
        }
        return (progressed, kill())
    }

    /// Every complete line printed so far.
    public var printedLines: [String] { lines.withLock { $0 } }
}

/// `kill(2)` with SIGKILL (a free function: inside `RunningHelper`, `kill` is the method).
private func sendKillSignal(to process: Int32) {
    _ = kill(process, SIGKILL)
}
