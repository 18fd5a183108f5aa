import Foundation
import VaultCore

// MARK: - Objects that read their values from a table image
//
// An object made from a table image (`Vault.materialize(_:image:rows:)`) does
// not copy its row: it keeps the image and its row number, and each property
// read takes the value from the image's column (through an
// `ImageColumnReader`, which touches no reference counts), as an object made
// from a statement takes it from its own buffer. Making the object is then an
// allocation and a few stores, and freeing it frees no values; a text value is
// decoded when it is read (the `String` goes to the caller, as a copy from the
// buffer would), so a loop that reads one property of each object pays for
// that property only. Callgrind put copying the rows at about 40 % of a
// filtered query's instructions per match: the row buffer's `malloc` and
// `free`, every value decoded and written, and each value's destroy.
//
// The values are the same: the image holds the row as of the image's version,
// which is the object's version when it is made, and an image is valid for
// that version only.
//
// An image never outlives its version in memory because of the objects made
// from it. The image keeps a list of them (intrusive, through
// `imagePrevious`/`imageNext`: a link and an unlink per object, no array);
// when the cache drops an image — the session's version moved, or the image was
// replaced or evicted to stay inside the cache's byte limit — `retire()` first
// *detaches* every object still on the list (each copies its row into a buffer
// of its own, exactly what it would have held had it been made from a
// statement) and then frees the rows. So a detached object behaves as every
// other object does afterwards: at the next read it sees the moved version and
// reloads, a deleted row keeps its last values, and a failed reload inside a
// write keeps the values of the transaction's start. Anything that needs the
// buffer itself (writes, observation's comparisons, the primary-key cache)
// detaches the object first through `storage`.
//
// All of this runs inside the session's confinement (images exist only for
// live, confined vaults), so the list needs no lock.

extension ManagedObject {
    /// Property `index`'s value from the image this object reads from (a column
    /// property; the caller has checked). An object without an image reads its buffer.
    @usableFromInline
    func imageValue(at index: Int) -> DatabaseValue {
        guard let readers = imageReaders, let column = schema.columnOffset(ofProperty: index) else { return storage[index] }
        // Borrowed: the image holds its readers until this object leaves its list.
        return readers[column]._withUnsafeGuaranteedRef { $0.value(at: imageRow) }
    }

    /// Copies this object's row out of its image into a buffer of its own and
    /// leaves the image's list; returns the buffer. (An object with a buffer returns it.)
    @discardableResult
    func detachFromImage() -> UnsafeMutablePointer<DatabaseValue> {
        if let buffer { return buffer }
        let fresh = Self.allocateRowStorage(for: schema)
        if let image {
            schema.columnIndexes.withUnsafeBufferPointer { properties in
                // Over the fresh buffer's NULLs, which own nothing.
                for (column, property) in properties.enumerated() { (fresh + property).initialize(to: image.value(row: imageRow, column: column)) }
            }
            image.unlink(self)
            self.image = nil
            imageReaders = nil
        }
        buffer = fresh
        return fresh
    }
}

extension TableImage {
    /// Adds `object` (just made from this image) to the list of objects reading from it.
    func link(_ object: ManagedObject) {
        object.imageNext = firstObject
        firstObject?.imagePrevious = object
        firstObject = object
    }

    /// Removes `object` from the list (it detached, or is being freed).
    func unlink(_ object: ManagedObject) {
        if let previous = object.imagePrevious { previous.imageNext = object.imageNext } else { firstObject = object.imageNext }
        object.imageNext?.imagePrevious = object.imagePrevious
        object.imagePrevious = nil
        object.imageNext = nil
    }

    /// The cache dropped this image: every object still reading from it copies
    /// its row out, then the rows are freed. Iterators holding the image see
    /// ``isRetired`` and go on with the statement.
    func retire() {
        guard !isRetired else { return }
        while let object = firstObject { object.detachFromImage() }
        freeRows()
    }
}
