import Foundation
import VaultCore

// MARK: - Dates to the nanosecond
//
// VaultKit stores a Date as Date itself does: a Double of seconds since 2001
// (REAL), so that comparisons, sorting and aggregates are plain SQL and every
// Swift Date round-trips exactly. A Realm file stores a timestamp as whole
// seconds since 1970 and nanoseconds, which a Double cannot always hold: for
// dates from about 2018 to 2035 a Double resolves about 119 ns, from about
// 1865 to 1933 about 477 ns (its step doubles with each doubling of the
// distance from 2001).
//
// Imported and exported data must come back to the nanosecond, so a vault
// keeps the timestamps a Double cannot spell in a side table:
//
//   _vaultkit_timestamps(stored REAL PRIMARY KEY, seconds, nanoseconds)
//
// keyed by the Double the column holds. Converting the other way, a stored
// Double becomes the timestamp with the fewest nanosecond digits that converts
// back to exactly that Double (as the shortest decimal of a Double is printed):
// a date written with microsecond precision comes back with it, without an
// entry. An entry is written only for a timestamp that this rule would not give
// back, and is used only while the column still holds its Double: a later
// write of another date leaves the entry unused, never wrong. Two timestamps
// less than a Double's resolution apart cannot both be kept (the first one
// wins): a vault cannot tell them apart anyway.

/// A point in time as Realm stores it: whole seconds since 1970-01-01T00:00:00Z
/// (negative before it) and nanoseconds, 0 ≤ nanoseconds < 10⁹.
@_spi(Interchange)
public struct VaultTimestamp: Hashable, Sendable, CustomStringConvertible {
    /// Whole seconds since 1970 (rounded down).
    public let seconds: Int64
    /// Nanoseconds after `seconds`.
    public let nanoseconds: Int32

    /// A timestamp; nanoseconds outside 0..<10⁹ carry into the seconds.
    public init(seconds: Int64, nanoseconds: Int32) {
        var seconds = seconds
        var nanoseconds = Int64(nanoseconds)
        while nanoseconds < 0 { nanoseconds += 1_000_000_000; seconds = seconds &- 1 }
        while nanoseconds >= 1_000_000_000 { nanoseconds -= 1_000_000_000; seconds = seconds &+ 1 }
        self.seconds = seconds
        self.nanoseconds = Int32(nanoseconds)
    }

    /// Seconds between 1970 and 2001, the reference date of `Date`.
    static let referenceOffset: Int64 = 978_307_200

    /// The Double a Date column stores for this timestamp (seconds since 2001).
    public var storedValue: Double {
        let (whole, overflow) = seconds.subtractingReportingOverflow(Self.referenceOffset)
        let base = overflow ? Double(seconds) - Double(Self.referenceOffset) : Double(whole)
        return base + Double(nanoseconds) / 1e9
    }

    /// The `Date` of this timestamp (to a Double's resolution).
    public var date: Date { Date(timeIntervalSinceReferenceDate: storedValue) }

    /// The timestamp with the fewest nanosecond digits whose ``storedValue`` is
    /// `stored` (the nearest nanosecond when none is exact); zero for NaN and
    /// the extremes for infinities.
    public init(storedValue stored: Double) {
        guard stored.isFinite else {
            self.init(seconds: stored.isNaN ? 0 : (stored > 0 ? .max : .min), nanoseconds: 0)
            return
        }
        let whole = stored.rounded(.down)
        let limit = 9.0e18
        guard abs(whole) < limit else {
            self.init(seconds: whole > 0 ? .max : .min, nanoseconds: 0)
            return
        }
        let seconds = Int64(whole).addingReportingOverflow(Self.referenceOffset)
        guard !seconds.overflow else {
            self.init(seconds: whole > 0 ? .max : .min, nanoseconds: 0)
            return
        }
        let fraction = (stored - whole) * 1e9
        var nearest = VaultTimestamp(seconds: seconds.partialValue, nanoseconds: 0)
        var step: Int64 = 1_000_000_000
        while step >= 1 {
            let nanoseconds = Int64((fraction / Double(step)).rounded()) * step
            let candidate = VaultTimestamp(seconds: seconds.partialValue, nanoseconds: Int32(clamping: nanoseconds))
            if candidate.storedValue == stored {
                self = candidate
                return
            }
            nearest = candidate
            step /= 10
        }
        self = nearest
    }

    /// `seconds.nanoseconds` (9 digits).
    public var description: String {
        let digits = String(nanoseconds)
        return "\(seconds).\(String(repeating: "0", count: 9 - digits.count))\(digits)"
    }
}

/// The side table of timestamps a Double cannot spell (see the essay above).
enum ExactTimestamps {
    static let createSQL = """
        CREATE TABLE IF NOT EXISTS _vaultkit_timestamps(stored REAL PRIMARY KEY, seconds INTEGER NOT NULL, \
        nanoseconds INTEGER NOT NULL) WITHOUT ROWID
        """
    static let tableExistsSQL = "SELECT 1 FROM sqlite_schema WHERE name = '_vaultkit_timestamps'"
    static let insertSQL = "INSERT OR IGNORE INTO _vaultkit_timestamps(stored, seconds, nanoseconds) VALUES (?, ?, ?)"
    static let selectSQL = "SELECT seconds, nanoseconds FROM _vaultkit_timestamps WHERE stored = ?"
    static let anyEntrySQL = "SELECT 1 FROM _vaultkit_timestamps LIMIT 1"

    /// Records `timestamp` if its stored Double would not give it back; returns the Double.
    static func record(_ timestamp: VaultTimestamp, with statement: Statement) throws(VaultError) -> Double {
        let stored = timestamp.storedValue
        // Whole microseconds within 2³² s of 2001 (1865–2137) always come back from the Double
        // (its resolution there is under 0.5 µs): no need to search.
        if timestamp.nanoseconds % 1_000 == 0 && abs(stored) < 4_294_967_296 { return stored }
        if VaultTimestamp(storedValue: stored) != timestamp {
            try statement.execute([.real(stored), .integer(timestamp.seconds), .integer(Int64(timestamp.nanoseconds))])
        }
        return stored
    }

    /// The timestamp a stored Double stands for: its entry if there is a valid one, else the shortest.
    static func timestamp(of stored: Double, lookup: Statement?) throws(VaultError) -> VaultTimestamp {
        if let lookup {
            let rows = try lookup.fetchAll([.real(stored)])
            if let row = rows.first, let seconds = row[0].int64, let nanoseconds = row[1].int64,
               let narrow = Int32(exactly: nanoseconds) {
                let exact = VaultTimestamp(seconds: seconds, nanoseconds: narrow)
                if exact.storedValue == stored { return exact }
            }
        }
        return VaultTimestamp(storedValue: stored)
    }
}
