import Foundation
import Testing
import VaultTestSupport
@testable import VaultCore

/// Asserts that no file in `directory` contains the plaintext marker.
func expectNoPlaintext(in directory: TemporaryDirectory, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
    for file in try directory.allFiles() {
        let data = try Data(contentsOf: file)
        #expect(!data.contains(plaintextMarker), "plaintext found in \(file.lastPathComponent) \(comment?.rawValue ?? "")", sourceLocation: sourceLocation)
    }
}

/// The sealed units of a WAL file of `size` bytes, as (physical range, location).
func walUnits(fileSize size: Int) -> [(range: Range<Int>, location: IntegrityFailure.Location)] {
    let layout = SealedFileLayout.wal
    let logicalSize = layout.logicalSize(physicalSize: Int64(size))
    var result: [(Range<Int>, IntegrityFailure.Location)] = []
    var logical: Int64 = 0
    while logical < logicalSize {
        let unit = layout.unit(at: logical)
        result.append((Int(unit.physicalStart)..<Int(unit.physicalEnd), unit.location))
        logical = unit.logicalEnd
    }
    return result
}
