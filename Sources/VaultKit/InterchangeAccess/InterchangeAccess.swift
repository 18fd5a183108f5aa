// MARK: - What the importers and exporters reach inside VaultKit
//
// The document formats live in their own modules: `VaultInterchange` reads and
// writes the canonical JSON document and CSV, `VaultRealmImport` maps a Realm
// file's objects onto a vault. Neither knows how VaultKit lays objects out in
// SQLite (tables, collection side tables, mixed values, row ids, the order
// index of a list). This folder is the one seam between them and that layout,
// behind `@_spi(Interchange)`, and holds nothing else:
//
// - `InterchangeValue` (with `InterchangeEntry`, `InterchangeError`): a
//   property's value in the form both importers produce and the exporters
//   consume; dates exact to the nanosecond as `VaultTimestamp`
//   (ExactTimestamp.swift), which a stored `Date` cannot always be.
// - `InterchangeReader` (`Vault.readInterchange`): one read transaction's
//   classes, counts, objects by row id in storage order, primary keys.
// - `InterchangeWriter` (`Vault.writeInterchange`, `Vault.createPopulated`):
//   rows inserted or upserted with their links resolved, collections appended
//   a batch at a time, a new vault built under a hidden name and published
//   whole.
// - Schema building (InterchangeSchema.swift): properties by persisted name,
//   runtime schemas for classes with no Swift type, the name checks every
//   imported schema passes.
// - Row addresses (Vault+RowAddress.swift): an object's row id, a dynamic
//   object by row id, backlinks through one property — for the studio.
//
// A format's rules (what a document may contain, how a Realm value maps) never
// come here: a new format is a new module over this seam.
