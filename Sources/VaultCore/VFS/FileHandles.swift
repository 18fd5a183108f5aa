import CSQLite

/// The file handle SQLite allocates for every file of VaultKit's two VFSs
/// (`szOsFile` bytes, `VaultFileHandle` in the C shim): SQLite's `sqlite3_file`
/// header (the io_methods) followed by the Swift object that serves the file,
/// kept unretained while the file is open (its xOpen retains it, its xClose releases it).
enum FileHandles {
    /// `file`'s handle, with its io_methods and state cleared: what an xOpen starts from.
    static func cleared(_ file: UnsafeMutablePointer<sqlite3_file>) -> UnsafeMutablePointer<VaultFileHandle> {
        let handle = UnsafeMutableRawPointer(file).assumingMemoryBound(to: VaultFileHandle.self)
        handle.pointee.base.pMethods = nil
        handle.pointee.state = nil
        return handle
    }

    /// The object serving an open file, unretained; nil for no file or one whose xOpen failed.
    @inline(__always)
    static func object<Object: AnyObject>(_ file: UnsafeMutablePointer<sqlite3_file>?, as _: Object.Type) -> Unmanaged<Object>? {
        guard let file else { return nil }
        let handle = UnsafeMutableRawPointer(file).assumingMemoryBound(to: VaultFileHandle.self)
        return handle.pointee.state.map { Unmanaged<Object>.fromOpaque($0) }
    }

    /// Closes `file`'s handle: forgets its object and releases it (the xOpen's retain).
    static func release<Object: AnyObject>(_ file: UnsafeMutablePointer<sqlite3_file>?, _ object: Unmanaged<Object>) {
        if let file { UnsafeMutableRawPointer(file).assumingMemoryBound(to: VaultFileHandle.self).pointee.state = nil }
        object.release()
    }
}
