import CSQLite

/// The VFS a shim VFS forwards to, stored in its `pAppData`.
func forwardedVFS(_ vfs: UnsafeMutablePointer<sqlite3_vfs>?) -> UnsafeMutablePointer<sqlite3_vfs>? {
    vfs?.pointee.pAppData?.assumingMemoryBound(to: sqlite3_vfs.self)
}

/// Pass-through: randomness, sleep and the clock come from the wrapped VFS
/// (the one in `pAppData`). Both of VaultKit's VFSes use these unchanged.
func installForwardedClockAndRandomness(_ vfs: inout sqlite3_vfs) {
    vfs.xRandomness = { vfs, count, output in
        guard let u = forwardedVFS(vfs), let f = u.pointee.xRandomness else { return 0 }
        return f(u, count, output)
    }
    vfs.xSleep = { vfs, microseconds in
        guard let u = forwardedVFS(vfs), let f = u.pointee.xSleep else { return 0 }
        return f(u, microseconds)
    }
    vfs.xCurrentTime = { vfs, time in
        guard let u = forwardedVFS(vfs), let f = u.pointee.xCurrentTime else { return SQLITE_ERROR }
        return f(u, time)
    }
    vfs.xCurrentTimeInt64 = { vfs, time in
        guard let u = forwardedVFS(vfs), let f = u.pointee.xCurrentTimeInt64 else { return SQLITE_ERROR }
        return f(u, time)
    }
}
