import Foundation

// Issue #26's targets, printed in the same run as the measurements: each of
// the four operations within 2× of Realm Core 20.1.5 on an encrypted file
// (absolute µs, recorded on this kind of machine in the workspace's
// performance-anchors note), and the same targets as ratios against GRDB on
// plain SQLite measured here (Realm Core's own figure over GRDB's), which do
// not drift with the machine's speed the way absolute times do.

/// One target: a row of the side-by-side table, Realm Core's anchor and the bounds.
struct RealmTarget {
    /// Index into `timings`.
    let row: Int
    let operation: String
    /// Realm Core's µs per operation on an encrypted file (nil: not measured there).
    let realmMicroseconds: Double?
    /// The bound on VaultKit / GRDB measured in the same run.
    let grdbRatioBound: Double

    /// VaultKit's µs per operation from a row's raw figure (the filtered query is timed whole).
    func perOperation(_ raw: Double, matches: Int) -> Double { row == 8 ? raw / Double(max(matches, 1)) : raw }
}

let realmTargets = [
    RealmTarget(row: 6, operation: "warm key fetch", realmMicroseconds: 0.55, grdbRatioBound: 0.23),
    RealmTarget(row: 0, operation: "bulk insert, per object", realmMicroseconds: 1.01, grdbRatioBound: 0.20),
    RealmTarget(row: 9, operation: "one-property update in a batch", realmMicroseconds: 1.02, grdbRatioBound: 0.025),
    RealmTarget(row: 8, operation: "filtered query, per match", realmMicroseconds: 0.20, grdbRatioBound: 0.19),
    RealmTarget(row: 7, operation: "iterate, per object", realmMicroseconds: nil, grdbRatioBound: 0.5),
]

/// Prints VaultKit next to Realm Core's anchors and the GRDB-ratio targets, saying which are met.
func printRealmTargets(_ timings: [Timings], matches: Int) {
    print("\nAgainst Realm Core 20.1.5 (encrypted; anchors from performance-anchors.md) and the GRDB-ratio targets of issue #26:")
    print("| operation | VaultKit µs | Realm Core µs | VaultKit / Realm (target ≤ 2×) | VaultKit / GRDB, median (range) | target | |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for target in realmTargets {
        let entry = timings[target.row]
        guard !entry.vaultKit.isEmpty else { continue }
        let vaultKit = target.perOperation(median(entry.vaultKit), matches: matches)
        let ratios = zip(entry.vaultKit, entry.grdb).map { $0 / $1 }
        let realm = target.realmMicroseconds.map { String(format: "%.2f", $0) } ?? "—"
        let realmRatio = target.realmMicroseconds.map { String(format: "%.2f×", vaultKit / $0) } ?? "—"
        let grdbRatio = ratios.isEmpty ? "—" : String(format: "%.3f× (%.3f–%.3f)", median(ratios), ratios.min() ?? .nan, ratios.max() ?? .nan)
        print(String(format: "| %@ | %.3f | %@ | %@ | %@ | ≤ %.3f× | %@ |", target.operation, vaultKit, realm, realmRatio, grdbRatio,
                     target.grdbRatioBound, verdict(target, vaultKit: vaultKit, ratios: ratios)))
    }
}

/// Each target on its own: the absolute one (within 2× of Realm Core) and the
/// GRDB ratio, which can be met by the median without being met in every repetition.
private func verdict(_ target: RealmTarget, vaultKit: Double, ratios: [Double]) -> String {
    var parts: [String] = []
    if let realm = target.realmMicroseconds {
        parts.append(vaultKit <= 2 * realm ? "absolute met" : "absolute missed")
    }
    if let worst = ratios.max() {
        if worst <= target.grdbRatioBound {
            parts.append("ratio met in every repetition")
        } else if median(ratios) <= target.grdbRatioBound {
            parts.append("ratio met by the median, not in every repetition")
        } else {
            parts.append("ratio missed")
        }
    }
    return parts.joined(separator: "; ")
}
