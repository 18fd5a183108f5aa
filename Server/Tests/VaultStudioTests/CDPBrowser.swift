import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

private func closeDescriptor(_ descriptor: Int32) { _ = close(descriptor) }

/// The Chromium to drive: /usr/bin/chromium, else `chromium` on $PATH.
let chromiumPath: String? = {
    var candidates = ["/usr/bin/chromium"]
    for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
        candidates.append("\(directory)/chromium")
    }
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
}()

/// Headless Chromium driven through the DevTools protocol over
/// `--remote-debugging-pipe`: commands to its fd 3, answers from its fd 4,
/// each message JSON ended by a NUL byte. Blocking; one page.
final class CDPBrowser {
    private var pid: pid_t = 0
    private var commandFD: Int32 = -1
    private var responseFD: Int32 = -1
    private var buffer: [UInt8] = []
    private var events: [[String: Any]] = []
    private var nextID = 1
    private var sessionID: String?
    let profile: URL

    /// `extraArguments`: further Chromium switches (for example `--host-resolver-rules`).
    init(executable: String, profile: URL, extraArguments: [String] = []) throws {
        self.profile = profile
        var toChrome: [Int32] = [0, 0], fromChrome: [Int32] = [0, 0]
        guard pipe(&toChrome) == 0, pipe(&fromChrome) == 0 else { throw StudioTestError.message("pipe failed") }
        // Close-on-exec: Chromium gets only the dup2'd copies (3 and 4).
        for descriptor in toChrome + fromChrome { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChrome[0], 3)
        posix_spawn_file_actions_adddup2(&actions, fromChrome[1], 4)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let arguments = [executable, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                         "--disable-extensions", "--remote-debugging-pipe", "--user-data-dir=\(profile.path)"] + extraArguments + ["about:blank"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let status = posix_spawn(&pid, executable, &actions, nil, &argv, environ)
        closeDescriptor(toChrome[0])
        closeDescriptor(fromChrome[1])
        commandFD = toChrome[1]
        responseFD = fromChrome[0]
        guard status == 0 else { throw StudioTestError.message("posix_spawn \(executable): \(status)") }

        let target = try command("Target.createTarget", ["url": "about:blank"], session: false)
        guard let targetID = target["targetId"] as? String else { throw StudioTestError.message("no targetId") }
        let attached = try command("Target.attachToTarget", ["targetId": targetID, "flatten": true], session: false)
        sessionID = attached["sessionId"] as? String
        _ = try command("Page.enable")
        _ = try command("Runtime.enable")
    }

    /// Sends a command (to the page's session unless `session` is false) and returns its result.
    @discardableResult
    func command(_ method: String, _ parameters: [String: Any] = [:], session: Bool = true, in otherSession: String? = nil) throws -> [String: Any] {
        let id = nextID
        nextID += 1
        var message: [String: Any] = ["id": id, "method": method, "params": parameters]
        if let otherSession { message["sessionId"] = otherSession } else if session, let sessionID { message["sessionId"] = sessionID }
        var data = try JSONSerialization.data(withJSONObject: message)
        data.append(0)
        try data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let written = write(commandFD, base + offset, raw.count - offset)
                guard written > 0 else { throw StudioTestError.message("write to Chromium failed") }
                offset += written
            }
        }
        while true {
            let reply = try readMessage(timeout: 30)
            if reply["id"] as? Int == id {
                if let error = reply["error"] { throw StudioTestError.message("\(method): \(error)") }
                return reply["result"] as? [String: Any] ?? [:]
            }
            if reply["method"] != nil { events.append(reply) }
        }
    }

    /// Waits for an event of the page's session named `name` (events already seen count).
    func waitForEvent(_ name: String, timeout: TimeInterval = 30) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let index = events.firstIndex(where: { $0["method"] as? String == name }) {
                events.removeSubrange(...index)
                return
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw StudioTestError.message("timed out waiting for \(name)") }
            let message = try readMessage(timeout: remaining)
            if message["method"] != nil { events.append(message) }
        }
    }

    private func readMessage(timeout: TimeInterval) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let end = buffer.firstIndex(of: 0) {
                let data = Data(buffer[..<end])
                buffer.removeSubrange(...end)
                guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { continue }
                return object
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw StudioTestError.message("Chromium did not answer in time") }
            var descriptor = pollfd(fd: responseFD, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(remaining, 5) * 1000))
            if ready <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = read(responseFD, &chunk, chunk.count)
            guard count > 0 else { throw StudioTestError.message("Chromium closed its pipe") }
            buffer += chunk[..<count]
        }
    }

    // MARK: Page

    func navigate(_ url: String) throws {
        events.removeAll()
        try command("Page.navigate", ["url": url])
        try waitForEvent("Page.loadEventFired")
    }

    /// The value of a JavaScript expression.
    func evaluate(_ expression: String) throws -> Any? {
        let result = try command("Runtime.evaluate", ["expression": expression, "returnByValue": true])
        if let exception = result["exceptionDetails"] { throw StudioTestError.message("\(expression): \(exception)") }
        return (result["result"] as? [String: Any])?["value"]
    }

    /// Runs `expression` (a click, a submit) and waits for the page it loads.
    func evaluateAndWait(_ expression: String) throws {
        events.removeAll()
        _ = try evaluate(expression)
        try waitForEvent("Page.loadEventFired")
    }

    /// Waits (up to `timeout`) until `expression` is true.
    func wait(until expression: String, timeout: TimeInterval = 10) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try evaluate(expression) as? Bool != true {
            guard Date() < deadline else { throw StudioTestError.message("timed out waiting for \(expression)") }
            usleep(50_000)
        }
    }

    var text: String { (try? evaluate("document.body.innerText") as? String) ?? "" }

    /// The frames of other origins in the page (each in a process of its own): the
    /// address each shows and its text. A frame the browser refused to show holds its
    /// error page (`chrome-error://…`).
    func crossOriginFrames() throws -> [(requested: String, location: String, text: String)] {
        let targets = try command("Target.getTargets", session: false)["targetInfos"] as? [[String: Any]] ?? []
        var frames: [(String, String, String)] = []
        for target in targets where target["type"] as? String == "iframe" {
            guard let targetID = target["targetId"] as? String else { continue }
            let attached = try command("Target.attachToTarget", ["targetId": targetID, "flatten": true], session: false)
            guard let frameSession = attached["sessionId"] as? String else { continue }
            func value(_ expression: String) throws -> String {
                let result = try command("Runtime.evaluate", ["expression": expression, "returnByValue": true], in: frameSession)
                return (result["result"] as? [String: Any])?["value"] as? String ?? ""
            }
            frames.append((target["url"] as? String ?? "", try value("location.href"), try value("document.body ? document.body.innerText : ''")))
            _ = try? command("Target.detachFromTarget", ["sessionId": frameSession], session: false)
        }
        return frames
    }
    var location: String { (try? evaluate("location.href") as? String) ?? "" }

    func screenshot(to url: URL) throws {
        let result = try command("Page.captureScreenshot", ["format": "png"])
        guard let base64 = result["data"] as? String, let data = Data(base64Encoded: base64) else {
            throw StudioTestError.message("no screenshot data")
        }
        try data.write(to: url)
    }

    func shutdown() {
        if commandFD >= 0 {
            _ = try? command("Browser.close", session: false)
        }
        if pid > 0 {
            var status: Int32 = 0
            for _ in 0..<50 {
                if waitpid(pid, &status, WNOHANG) == pid { pid = 0; break }
                usleep(100_000)
            }
            if pid > 0 { kill(pid, SIGKILL); waitpid(pid, &status, 0); pid = 0 }
        }
        if commandFD >= 0 { closeDescriptor(commandFD); commandFD = -1 }
        if responseFD >= 0 { closeDescriptor(responseFD); responseFD = -1 }
    }

    deinit { shutdown() }
}
