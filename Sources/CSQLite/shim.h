// The system SQLite (Debian's libsqlite3-dev, Homebrew's sqlite), stock and unpatched.
//
// Swift does not import C macros whose value is an expression, so the
// extended result codes and SQLITE_TRANSIENT are restated here as constants.
#include <stddef.h>
#include <sqlite3.h>

// SQLITE_TRANSIENT is ((sqlite3_destructor_type)-1): SQLite copies the value before bind returns.
static inline sqlite3_destructor_type vaultkit_sqlite_transient(void) { return SQLITE_TRANSIENT; }

// Extended result codes the storage core returns from its VFS or matches on.
static const int VAULTKIT_SQLITE_IOERR_READ        = SQLITE_IOERR_READ;
static const int VAULTKIT_SQLITE_IOERR_SHORT_READ  = SQLITE_IOERR_SHORT_READ;
static const int VAULTKIT_SQLITE_IOERR_WRITE       = SQLITE_IOERR_WRITE;
static const int VAULTKIT_SQLITE_IOERR_TRUNCATE    = SQLITE_IOERR_TRUNCATE;
static const int VAULTKIT_SQLITE_IOERR_FSTAT       = SQLITE_IOERR_FSTAT;
static const int VAULTKIT_SQLITE_IOERR_FSYNC       = SQLITE_IOERR_FSYNC;
static const int VAULTKIT_SQLITE_IOERR_NOMEM       = SQLITE_IOERR_NOMEM;
static const int VAULTKIT_SQLITE_IOERR_DATA        = SQLITE_IOERR_DATA;
static const int VAULTKIT_SQLITE_IOERR_DELETE_NOENT = SQLITE_IOERR_DELETE_NOENT;
static const int VAULTKIT_SQLITE_CANTOPEN_NOTEMPDIR = SQLITE_CANTOPEN_NOTEMPDIR;
static const int VAULTKIT_SQLITE_READONLY_DBMOVED  = SQLITE_READONLY_DBMOVED;
static const int VAULTKIT_SQLITE_BUSY_SNAPSHOT     = SQLITE_BUSY_SNAPSHOT;

// The file object the VFS hands to SQLite. SQLite allocates szOsFile bytes and
// sees only `base`; the wrapped (unix) file follows at VAULTKIT_WRAPPED_OFFSET.
typedef struct VaultFileHandle {
    sqlite3_file base;   /* must be first: SQLite reads pMethods from here */
    void *state;         /* the Swift object that seals this file (retained) */
} VaultFileHandle;

#define VAULTKIT_WRAPPED_OFFSET ((sizeof(VaultFileHandle) + 7) & ~(size_t)7)
static inline size_t vaultkit_wrapped_offset(void) { return VAULTKIT_WRAPPED_OFFSET; }

// sqlite3_config is variadic too. Memory statistics cost a global mutex on every
// allocation SQLite makes; VaultKit never reads them. Before sqlite3_initialize
// only: afterwards SQLite refuses (SQLITE_MISUSE) and nothing changes.
static inline int vaultkit_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

// sqlite3_db_config is variadic, which Swift cannot call: one fixed-shape wrapper.
static inline int vaultkit_db_config_flag(sqlite3 *db, int op, int value) {
    int current = 0;
    return sqlite3_db_config(db, op, value, &current);
}

// One machine word read and written atomically (VaultCore's AtomicWord): checks
// on hot paths — the thread inside a connection, whether a fault plan is armed —
// that a lock would cost more than. Swift sees a plain word; every access goes
// through these functions.
#include <stdint.h>
#include <stdatomic.h>
static inline uintptr_t vaultkit_atomic_load_word(uintptr_t *word) {
    return atomic_load_explicit((_Atomic uintptr_t *)word, memory_order_acquire);
}
static inline _Bool vaultkit_atomic_claim_word(uintptr_t *word, uintptr_t expected, uintptr_t desired) {
    return atomic_compare_exchange_strong_explicit((_Atomic uintptr_t *)word, &expected, desired,
                                                   memory_order_acq_rel, memory_order_acquire);
}
static inline void vaultkit_atomic_store_word(uintptr_t *word, uintptr_t value) {
    atomic_store_explicit((_Atomic uintptr_t *)word, value, memory_order_release);
}
