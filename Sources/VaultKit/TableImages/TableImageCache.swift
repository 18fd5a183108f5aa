import Foundation
import VaultCore

/// A vault instance's table images (see TableImage.swift): at most one per
/// class, all of one content version, together within ``byteLimit``. An image
/// the cache drops is retired (``TableImage/retire()``), so that the objects
/// made from it never keep its rows in memory.
///
/// Used only inside its session's confinement (never by a frozen session), so
/// its fields skip Swift's dynamic exclusivity checks, as the other per-session
/// caches do.
final class TableImageCache {
    /// The most an instance's images hold together, by their columns' estimates
    /// (``ImageColumn/byteCount``): 16 MiB, about 230,000 rows of a six-property
    /// class like the benchmarks' (71 bytes a row). It bounds what images add
    /// to a vault instance's memory on top of its page caches (see
    /// Benchmarks/README.md, "Table images").
    static let byteLimit = 16 * 1024 * 1024
    /// How many times one filtered `Results` of a class is read at one version
    /// before the class is read into an image: building one costs about two
    /// filtered scans, so the third scan is where it starts to pay (see
    /// Benchmarks/README.md, "Table images").
    static let readsBeforeBuilding = 3

    @exclusivity(unchecked) private var images: [ObjectIdentifier: TableImage] = [:]
    @exclusivity(unchecked) private var bytes = 0
    /// Filtered reads per class at `demandVersion`.
    @exclusivity(unchecked) private var demand: [ObjectIdentifier: Int] = [:]
    @exclusivity(unchecked) private var demandVersion: UInt64 = 0

    /// The bytes the images hold now (tests read it).
    var byteCount: Int { bytes }
    /// The number of images held now (tests read it).
    var count: Int { images.count }

    /// The image of `schema`'s class at `version`, if there is one. (The session
    /// empties the cache whenever its version moves, so every image held is of
    /// the current version; the checks are what make that safe to rely on.)
    func image(for schema: ObjectSchema, version: UInt64) -> TableImage? {
        guard let image = images[ObjectIdentifier(schema)], image.version == version,
              image.columnCount == schema.columnIndexes.count else { return nil }
        return image
    }

    /// Keeps `image` as its class's image, dropping images of another version
    /// and, if the total would pass ``byteLimit``, the largest others; an image
    /// larger than the limit is not kept (false: the caller must not hand out
    /// objects from it, since only a kept image is retired when its version passes).
    @discardableResult
    func store(_ image: TableImage) -> Bool {
        if images.values.contains(where: { $0.version != image.version }) { removeAll() }
        if let earlier = images.removeValue(forKey: image.schema) {
            bytes -= earlier.byteCount
            if earlier !== image { earlier.retire() }
        }
        guard image.byteCount <= Self.byteLimit else { return false }
        while bytes + image.byteCount > Self.byteLimit, let (id, other) = images.max(by: { $0.value.byteCount < $1.value.byteCount }) {
            images[id] = nil
            bytes -= other.byteCount
            other.retire()
        }
        images[image.schema] = image
        bytes += image.byteCount
        return true
    }

    /// Drops every image (the session's version moved past them), retiring each:
    /// the objects still reading from one copy their rows out, and its rows are freed.
    func removeAll() {
        for image in images.values { image.retire() }
        images.removeAll()
        bytes = 0
    }

    /// Records one filtered read of `schema`'s class at `version`; true when it
    /// is the ``readsBeforeBuilding``-th at that version (build the image now).
    func recordFilteredRead(_ schema: ObjectSchema, version: UInt64) -> Bool {
        if version != demandVersion {
            demand.removeAll(keepingCapacity: true)
            demandVersion = version
        }
        let id = ObjectIdentifier(schema)
        let reads = (demand[id] ?? 0) + 1
        demand[id] = reads
        return reads >= Self.readsBeforeBuilding
    }
}
