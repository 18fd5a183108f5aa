import Foundation
import VaultCore

// MARK: - Objects that read their values from a table image
//
// An object made from a table image (`Vault.materialize(_:image:rows:)`) does
// not copy its row: it keeps the image and its row number, and each property
// read takes the value from the image's column (through the image's
// `ImageColumnReader` for the property, which touches no reference counts;
// a number or a text is taken without a `DatabaseValue`), as an object made
// from a statement takes it from its own buffer. Making the object is then an
// allocation and a few stores, and freeing it frees no values; a text value is
// decoded when it is read (the `String` goes to the caller, as a copy from the
// buffer would), so a loop that reads one property of each object pays for
// that property only. Copying the rows was the largest part of a filtered
// query's cost per match: the row buffer's `malloc` and `free`, every value
// decoded and written, and each value's destroy (Benchmarks/README.md,
// "Objects read from an image").
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
// Neither the list nor an object's pointer to its image counts references
// (`Unmanaged`): the session's cache holds every image that objects read from
// and retires it — emptying the list — before it lets go of it, and each object
// holds its vault, so the session and its cache outlive the objects. An object
// leaves the list in its `deinit`; an image that goes without being retired
// (one the cache never held) detaches whatever is still on its list in its own.
//
// Since the cache retires an image as soon as the session's version moves, an
// object on an image is always at the session's version: a typed read
// (`imageInteger`, `imageReal`, `imageText`) checks the confinement and the
// version itself and reads, one call where the general path makes two.
//
// All of this runs inside the session's confinement (images exist only for
// live, confined vaults), so the list needs no lock.

extension ManagedObject {
    /// The table image this object reads its values from, nil once it has a buffer of its own.
    var image: TableImage? { imageReference?.takeUnretainedValue() }

    /// Property `index`'s value from the image this object reads from (a column
    /// property; the caller has checked). An object without an image reads its buffer.
    @usableFromInline
    func imageValue(at index: Int) -> DatabaseValue {
        // The image holds its readers until this object leaves its list.
        guard let readers = imageReaders else { return storage[index] }
        return readers[index].value(at: imageRow)
    }

    /// Property `index`'s value read from the image (a column property: the
    /// caller has checked), when the object reads from one, is current, and the
    /// value is of the type's column kind; nil otherwise, and the caller takes
    /// the general path (``ensureFresh()``, then the buffer or ``imageValue(at:)``).
    /// The value is taken without building a `DatabaseValue` and decoded as the
    /// one ``imageValue(at:)`` would build (the same case, the same payload), so
    /// the result is the same either way. Each typed read checks the
    /// confinement and the version itself, which for an object on an image is
    /// all ``ensureFresh()`` would do (an image is retired, detaching its
    /// objects, as soon as the version moves), so a read is one call.
    @inlinable @inline(__always)
    func readFromImage<Value: PersistableValue>(_: Value.Type, at index: Int) -> Value? {
        switch Value._vaultPropertyType {
        case .int, .bool:
            if let number = imageInteger(at: index) { return Value._vaultDecode(.integer(number)) }
        case .double, .float, .date:
            if let number = imageReal(at: index) { return Value._vaultDecode(.real(number)) }
        case .string:
            if let text = imageText(at: index) { return Value._vaultDecode(.text(text)) }
        default:
            break
        }
        return nil
    }

    /// Whether a read from the image may go ahead: the caller is inside the
    /// session's confinement (checked, as every read is) and the object is at
    /// the session's version.
    @inline(__always)
    private func canReadImage() -> Bool {
        vault.session.verifyConfinement("a managed \(schema.className) object")
        return version == vault.session.contentVersion
    }

    /// Property `index`'s integer in the image, when its column holds integers and the row's is not NULL.
    @usableFromInline
    func imageInteger(at index: Int) -> Int64? {
        guard let readers = imageReaders, canReadImage() else { return nil }
        return readers[index].integer(at: imageRow)
    }

    /// Property `index`'s real in the image, when its column holds reals and the row's is not NULL.
    @usableFromInline
    func imageReal(at index: Int) -> Double? {
        guard let readers = imageReaders, canReadImage() else { return nil }
        return readers[index].real(at: imageRow)
    }

    /// Property `index`'s text in the image, when its column holds text and the row's is not NULL.
    @usableFromInline
    func imageText(at index: Int) -> String? {
        guard let readers = imageReaders, canReadImage() else { return nil }
        return ImageColumnReader.text(in: readers + index, at: imageRow)
    }

    /// Copies this object's row out of its image into a buffer of its own and
    /// leaves the image's list; returns the buffer. (An object with a buffer returns it.)
    @discardableResult
    func detachFromImage() -> UnsafeMutablePointer<DatabaseValue> {
        if let buffer { return buffer }
        let fresh = Self.allocateRowStorage(for: schema)
        if let imageReference {
            imageReference._withUnsafeGuaranteedRef { image in
                schema.columnIndexes.withUnsafeBufferPointer { properties in
                    // Over the fresh buffer's NULLs, which own nothing.
                    for property in properties { (fresh + property).initialize(to: image.value(row: imageRow, property: property)) }
                }
                image.unlink(self)
            }
            self.imageReference = nil
            imageReaders = nil
        }
        buffer = fresh
        return fresh
    }
}

extension TableImage {
    /// Adds `object` (just made from this image) to the list of objects reading
    /// from it. The list counts no references (see ManagedObject's `imageReference`).
    func link(_ object: ManagedObject) {
        let reference = Unmanaged.passUnretained(object)
        object.imageNext = firstObject
        firstObject?._withUnsafeGuaranteedRef { $0.imagePrevious = reference }
        firstObject = reference
    }

    /// Removes `object` from the list (it detached, or is being freed).
    func unlink(_ object: ManagedObject) {
        let previous = object.imagePrevious
        let next = object.imageNext
        if let previous { previous._withUnsafeGuaranteedRef { $0.imageNext = next } } else { firstObject = next }
        next?._withUnsafeGuaranteedRef { $0.imagePrevious = previous }
        object.imagePrevious = nil
        object.imageNext = nil
    }

    /// The cache dropped this image: every object still reading from it copies
    /// its row out, then the rows are freed. Iterators holding the image see
    /// ``isRetired`` and go on with the statement.
    func retire() {
        guard !isRetired else { return }
        while let object = firstObject { object._withUnsafeGuaranteedRef { _ = $0.detachFromImage() } }
        freeRows()
    }
}
