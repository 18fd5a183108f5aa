// A device in a child process, for the tests that run devices side by side
// in processes of their own and kill them. The device (folder, keys, server,
// token) comes as one JSON line on standard input, never on the command line.
//
//   SyncDeviceHelper write COUNT PREFIX   commit COUNT tasks, printing "committed N" after each,
//                                         then wait for the upload and print "uploaded"
//   SyncDeviceHelper sync                 wait for upload and download, print "synced TITLES"
//   SyncDeviceHelper rotate-write COUNT PREFIX
//                                         rotate the space key (a signing device), print "rotated",
//                                         then as write
import Foundation
import SyncServerHarness
import VaultKit
import VaultSync

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("SyncDeviceHelper: \(message)\n".utf8))
    exit(2)
}

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

guard let line = readLine(), let description = try? JSONDecoder().decode(DeviceDescription.self, from: Data(line.utf8)),
      let setup = try? description.setup() else { fail("expected the device as a JSON line on stdin") }
let arguments = Array(CommandLine.arguments.dropFirst())
let queue = DispatchQueue(label: "device")

do {
    let vault = try queue.sync { try Vault(configuration: setup.configuration, queue: queue) }
    guard let session = queue.sync(execute: { vault.syncSession }) else { fail("no sync session") }
    switch arguments.first {
    case "write", "rotate-write":
        guard arguments.count == 3, let count = Int(arguments[1]) else { fail("write COUNT PREFIX") }
        if arguments[0] == "rotate-write" {
            try session.space.rotateSyncKey()
            say("rotated")
        }
        for index in 0..<count {
            try queue.sync {
                try vault.write { vault.add(SyncedTask(value: ["id": "\(arguments[2])-\(index)", "title": "\(arguments[2]) \(index)", "rank": index])) }
            }
            say("committed \(index)")
        }
        try await session.wait(for: .upload)
        say("uploaded")
    case "sync":
        try await session.wait(for: .upload)
        try await session.wait(for: .download)
        let titles = queue.sync { () -> [String] in
            vault.refresh()
            return vault.objects(SyncedTask.self).map(\.title).sorted()
        }
        say("synced \(titles.count)")
    default:
        fail("unknown command \(arguments.first ?? "")")
    }
    queue.sync { _ = vault }
} catch {
    fail("\(error)")
}
