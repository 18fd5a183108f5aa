/// Line-based unified diffs (Myers' algorithm), as printed by `vault-port --dry-run`.
public enum UnifiedDiff {
    private enum Edit: Equatable {
        case keep(Int, Int)
        case delete(Int)
        case insert(Int)
    }

    /// Returns a unified diff of `old` and `new` with `context` lines around each hunk,
    /// or an empty string when the texts are equal.
    public static func diff(old: String, new: String, oldName: String, newName: String, context: Int = 3) -> String {
        if old == new { return "" }
        let a = lines(old)
        let b = lines(new)
        let edits = myers(a, b)
        var output = "--- \(oldName)\n+++ \(newName)\n"
        // Group edits into hunks.
        var index = 0
        while index < edits.count {
            guard let firstChange = edits[index...].firstIndex(where: { if case .keep = $0 { return false } else { return true } }) else { break }
            let start = max(index, firstChange - context)
            var end = firstChange
            var lastChange = firstChange
            while end < edits.count {
                if case .keep = edits[end] {
                    if end - lastChange > 2 * context { break }
                } else {
                    lastChange = end
                }
                end += 1
            }
            let stop = min(edits.count, lastChange + context + 1)
            let hunk = edits[start..<stop]
            var oldStart = 0, newStart = 0, oldCount = 0, newCount = 0
            var body = ""
            var first = true
            for edit in hunk {
                switch edit {
                case let .keep(i, j):
                    if first { oldStart = i + 1; newStart = j + 1 }
                    oldCount += 1; newCount += 1
                    body += " \(a[i])\n"
                case let .delete(i):
                    if first { oldStart = i + 1; newStart = newLineBefore(edits, start) + 1 }
                    oldCount += 1
                    body += "-\(a[i])\n"
                case let .insert(j):
                    if first { oldStart = oldLineBefore(edits, start) + 1; newStart = j + 1 }
                    newCount += 1
                    body += "+\(b[j])\n"
                }
                first = false
            }
            if oldCount == 0 { oldStart -= 1 }
            if newCount == 0 { newStart -= 1 }
            output += "@@ -\(oldStart),\(oldCount) +\(newStart),\(newCount) @@\n" + body
            index = stop
        }
        return output
    }

    private static func oldLineBefore(_ edits: [Edit], _ position: Int) -> Int {
        var count = 0
        for edit in edits[..<position] {
            switch edit {
            case .keep, .delete: count += 1
            case .insert: break
            }
        }
        return count
    }

    private static func newLineBefore(_ edits: [Edit], _ position: Int) -> Int {
        var count = 0
        for edit in edits[..<position] {
            switch edit {
            case .keep, .insert: count += 1
            case .delete: break
            }
        }
        return count
    }

    private static func lines(_ text: String) -> [Substring] {
        var result = text.split(separator: "\n", omittingEmptySubsequences: false)
        if result.last == "" { result.removeLast() }
        return result
    }

    /// Myers' O(ND) shortest edit script.
    private static func myers(_ a: [Substring], _ b: [Substring]) -> [Edit] {
        let n = a.count, m = b.count
        let maxD = n + m
        let offset = maxD + 1
        var v = [Int](repeating: 0, count: 2 * maxD + 3)
        var trace: [[Int]] = []
        var found = false
        for d in 0...maxD {
            trace.append(v)
            var k = -d
            while k <= d {
                var x: Int
                if k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]) {
                    x = v[offset + k + 1]
                } else {
                    x = v[offset + k - 1] + 1
                }
                var y = x - k
                while x < n && y < m && a[x] == b[y] { x += 1; y += 1 }
                v[offset + k] = x
                if x >= n && y >= m { found = true; break }
                k += 2
            }
            if found { break }
        }
        // Backtrack.
        var edits: [Edit] = []
        var x = n, y = m
        for d in stride(from: trace.count - 1, through: 0, by: -1) {
            if d == 0 {
                while x > 0 && y > 0 { x -= 1; y -= 1; edits.append(.keep(x, y)) }
                break
            }
            let vd = trace[d]
            let k = x - y
            let prevK: Int
            if k == -d || (k != d && vd[offset + k - 1] < vd[offset + k + 1]) {
                prevK = k + 1
            } else {
                prevK = k - 1
            }
            let prevX = vd[offset + prevK]
            let prevY = prevX - prevK
            while x > prevX && y > prevY {
                x -= 1; y -= 1
                edits.append(.keep(x, y))
            }
            if x == prevX { y -= 1; edits.append(.insert(y)) } else { x -= 1; edits.append(.delete(x)) }
            x = prevX
            y = prevY
        }
        return edits.reversed()
    }
}
