/// One rewrite the porting tool made.
public struct PortChange: Codable, Sendable, Equatable {
    /// The file that was rewritten, as it was given to the tool.
    public var file: String
    /// The 1-based line, in the original file, of the code that was rewritten.
    public var line: Int
    /// The rule that made the change (for example `imports`, `type-renames`, `model-properties`).
    public var rule: String
    /// The original source text of the rewritten code (trimmed of surrounding whitespace).
    public var before: String
    /// The new source text (trimmed of surrounding whitespace); empty when the code was removed.
    public var after: String

    /// Creates a change record.
    public init(file: String, line: Int, rule: String, before: String, after: String) {
        self.file = file
        self.line = line
        self.rule = rule
        self.before = before
        self.after = after
    }
}

/// Code the tool left as it was because it could not port it safely.
///
/// The tool also inserts `// vault port: <reason>` above such code.
public struct NotPortable: Codable, Sendable, Equatable {
    /// The file that holds the code.
    public var file: String
    /// The 1-based line of the code in the original file (0 when the whole file is concerned).
    public var line: Int
    /// Why the code was not ported.
    public var reason: String

    /// Creates a not-portable record.
    public init(file: String, line: Int, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }
}

/// The outcome of porting one source text.
public struct FilePortResult: Sendable {
    /// The file name the source was reported under.
    public var file: String
    /// The source text before porting.
    public var original: String
    /// The source text after porting (equal to ``original`` when nothing changed).
    public var ported: String
    /// Every rewrite made, in source order.
    public var changes: [PortChange]
    /// Every piece of code left unported, in source order.
    public var notPortable: [NotPortable]

    /// Whether porting changed the text.
    public var isModified: Bool { original != ported }

    /// Creates a result.
    public init(file: String, original: String, ported: String, changes: [PortChange], notPortable: [NotPortable]) {
        self.file = file
        self.original = original
        self.ported = ported
        self.changes = changes
        self.notPortable = notPortable
    }
}

/// The JSON document printed by `vault-port --json`.
public struct JSONReport: Codable, Sendable, Equatable {
    /// Every change, across all files.
    public var changes: [PortChange]
    /// Every file and line that could not be ported.
    public var notPortable: [NotPortable]
    /// The files that were (or, with `--dry-run`, would be) rewritten.
    public var modifiedFiles: [String]
    /// Whether the files were left untouched (`--dry-run`).
    public var dryRun: Bool

    /// Builds the report from per-file results.
    public init(results: [FilePortResult], dryRun: Bool) {
        changes = results.flatMap(\.changes)
        notPortable = results.flatMap(\.notPortable)
        modifiedFiles = results.filter(\.isModified).map(\.file)
        self.dryRun = dryRun
    }
}
