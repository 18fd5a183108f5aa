/*
 * Stock SQLite, unencrypted, on the side-by-side benchmark's update workload:
 * a table of 100,000 six-column rows (an index on email), reopened, then
 * 10,000 one-column UPDATEs by rowid in one transaction, timed apart from its
 * COMMIT (WAL, synchronous = FULL, a 32 MB page cache), three transactions on
 * one connection (the first with a cold page cache).
 *
 *     cc -O2 plain-sqlite-updates.c -lsqlite3 -o plain-sqlite-updates
 *     ./plain-sqlite-updates DIRECTORY [sorted]
 *
 * `sorted` sends the updates in rowid order, as VaultKit sends its pending rows.
 * Not part of `make bench`: a reference for what SQLite itself costs here.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double milliseconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int ascending(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static void check(int rc, sqlite3 *db, const char *what) {
    if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
        fprintf(stderr, "%s: %s\n", what, sqlite3_errmsg(db));
        exit(1);
    }
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s DIRECTORY [sorted]\n", argv[0]); return 2; }
    int sorted = argc > 2 && strcmp(argv[2], "sorted") == 0;
    char path[4096], wal[4200], shm[4200];
    snprintf(path, sizeof path, "%s/plain.db", argv[1]);
    snprintf(wal, sizeof wal, "%s-wal", path);
    snprintf(shm, sizeof shm, "%s-shm", path);
    unlink(path); unlink(wal); unlink(shm);

    sqlite3 *db;
    check(sqlite3_open(path, &db), db, "open");
    check(sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA cache_size = -32768;"
                           "CREATE TABLE t(_vk_id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL,"
                           " age INTEGER NOT NULL, score REAL NOT NULL, created REAL NOT NULL);"
                           "CREATE INDEX t_email ON t(email); BEGIN", 0, 0, 0), db, "create");
    sqlite3_stmt *insert;
    check(sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)", -1, &insert, 0), db, "prepare insert");
    char text[64];
    for (int i = 1; i <= 100000; i++) {
        sqlite3_bind_int64(insert, 1, i);
        snprintf(text, sizeof text, "Name %d", i);
        sqlite3_bind_text(insert, 2, text, -1, SQLITE_TRANSIENT);
        snprintf(text, sizeof text, "user%d@example.org", i);
        sqlite3_bind_text(insert, 3, text, -1, SQLITE_TRANSIENT);
        sqlite3_bind_int(insert, 4, i % 80);
        sqlite3_bind_double(insert, 5, i * 0.5);
        sqlite3_bind_double(insert, 6, 1e8 + i);
        check(sqlite3_step(insert), db, "insert");
        sqlite3_reset(insert);
    }
    sqlite3_finalize(insert);
    check(sqlite3_exec(db, "COMMIT; PRAGMA wal_checkpoint(TRUNCATE);", 0, 0, 0), db, "commit inserts");
    sqlite3_close(db);

    check(sqlite3_open(path, &db), db, "reopen");
    check(sqlite3_exec(db, "PRAGMA synchronous = FULL; PRAGMA cache_size = -32768;", 0, 0, 0), db, "pragmas");
    static int keys[10000];
    srand(7);
    for (int i = 0; i < 10000; i++) keys[i] = 1 + rand() % 100000;
    if (sorted) qsort(keys, 10000, sizeof keys[0], ascending);
    sqlite3_stmt *update;
    check(sqlite3_prepare_v2(db, "UPDATE t SET score = ? WHERE _vk_id = ?", -1, &update, 0), db, "prepare update");
    for (int pass = 0; pass < 3; pass++) {
        double start = milliseconds();
        check(sqlite3_exec(db, "BEGIN", 0, 0, 0), db, "begin");
        for (int i = 0; i < 10000; i++) {
            sqlite3_bind_double(update, 1, pass + i);
            sqlite3_bind_int64(update, 2, keys[i]);
            check(sqlite3_step(update), db, "update");
            sqlite3_reset(update);
        }
        double updated = milliseconds();
        check(sqlite3_exec(db, "COMMIT", 0, 0, 0), db, "commit");
        double committed = milliseconds();
        printf("transaction %d (%s): updates %.2f ms, commit %.2f ms, %.2f µs an update\n", pass + 1,
               sorted ? "rowid order" : "random order", updated - start, committed - updated, (committed - start) / 10.0);
    }
    sqlite3_finalize(update);
    sqlite3_close(db);
    unlink(path); unlink(wal); unlink(shm);
    return 0;
}
