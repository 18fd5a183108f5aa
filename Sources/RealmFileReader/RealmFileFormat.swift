// The Realm file format, as this reader understands it
// =====================================================
//
// Realm Core's C++ sources (github.com/realm/realm-core, read at tags v14.14.0 and
// v20.1.5, whose storage code is identical) are the only specification. This essay
// records what the reader relies on, file by file; names in `backquotes` are
// realm-core sources under src/realm/. Nothing here is copied code.
//
// 1. Versions
// -----------
// The header names a "file format" (`group.hpp`, comment "File format versions").
// This reader reads 22 (Realm Core 11–12, RealmSwift 10.8–10.34), 23 (Core 13,
// RealmSwift 10.35–10.48) and 24 (Core 14 and 20, RealmSwift 10.49 and later):
//
//   22  ObjKeys no longer derived from primary keys; search index on primary keys.
//   23  Set and dictionary layout changed: a dictionary used to be a small cluster
//       tree of its own (string keys in column 0, mixed values in column 1); from 23
//       it is a pair of B+trees (`Table::migrate_sets_and_dictionaries`,
//       `Dictionary::migrate` in `dictionary.cpp`; Set<Mixed> was only re-sorted).
//   24  Decimal128 leaves of variable width; nested lists and dictionaries inside
//       mixed values; backlinks in B+trees; a new string sort order (which changes
//       the stored order of sets, not their contents); the link-list column type
//       13 became type 12 with the list attribute (`Spec::migrate_column_keys`).
// Older formats (≤ 21) are refused with a message saying how to upgrade.
// Formats 20/21 differ little, but no file of theirs was available to verify.
// Core 20 writes no new node encodings: the "compressed"/"packed"/"flex" integer
// arrays of realm-core's later development branch never shipped in a release, and
// `node_header.hpp` at v14.14.0 and v20.1.5 knows only the three width types below.
//
// 2. The header and the streaming footer (`alloc_slab.hpp`, `alloc_slab.cpp`)
// ---------------------------------------------------------------------------
//     0   u64 top_ref[0]      16  "T-DB"                22  reserved
//     8   u64 top_ref[1]      20  u8 file_format[0..1]  23  flags (bit 0: slot)
// Bit 0 of the flags selects the slot of both the top ref and the format; the other
// slot is the previous commit. The file size must be a multiple of 8, the top ref
// 8-aligned and inside the file; top ref 0 is a new, empty Realm. A file written by
// `Group::write` (writeCopy) is on "streaming form": slot 0 selected, top_ref[0]
// all ones, and the real top ref in a 16-byte footer at the very end:
// `{u64 top_ref; u64 0x3034125237E526C8}`. A missing cookie means a cut file.
// All integers are little-endian (native order on every platform Realm supports).
//
// 3. Nodes (`node_header.hpp`, comment at the top of `array.cpp`, `array_direct.hpp`)
// ------------------------------------------------------------------------------------
// Everything past the header is a tree of array nodes addressed by refs (byte
// offsets; 0 = none; always 8-aligned). A node is an 8-byte header and a payload:
//     bytes 0–3  "AAAA" (a checksum placeholder every writer sets; checked here)
//     byte 4     0x80 inner B+tree node, 0x40 has refs, 0x20 context flag,
//                0x18 width type (0 bits, 1 bytes, 2 one byte per element),
//                0x07 width code w: width = (1 << w) >> 1 ∈ {0,1,2,4,8,16,32,64}
//     bytes 5–7  element count, 24-bit big-endian
// Payload length: ceil(count·width/8) for bits, count·width for bytes, count for
// "ignore"; rounded up to 8 on disk. Integer arrays (width type 0) pack widths 1, 2
// and 4 unsigned, least significant bits first, and store 8, 16, 32 and 64 as signed
// little-endian; width 0 means all zeros. `array_unsigned.cpp` (cluster keys,
// B+tree offsets) reads widths 8, 16, 32 unsigned. In a has-refs array an element
// with its lowest bit clear is a ref, one with it set is a "tagged" number
// (v << 1 | 1, `RefOrTagged`).
//
// 4. B+trees (`bplustree.cpp`, `array.cpp`)
// -----------------------------------------
// Lists, sets, dictionary halves and list leaves are B+trees of at most 1000
// elements per leaf. An inner node (flag 0x80) is
//     [elements-per-child (tagged) | ref to an offsets array, child refs…, total (tagged)]
// and a leaf is any node without the flag; an empty tree is an empty leaf. Reading in
// order needs only the children, left to right.
//
// 5. The group (`group.hpp`, `group.cpp`)
// ---------------------------------------
// The top array: 0 table names (a string leaf), 1 table refs (a tagged entry is a
// deleted table), 2 logical file size (tagged; a file shorter than it was cut),
// 3–5 free lists, 6 version, 7–9 history, 10 sync file id, 11 evacuation point.
// Files written by `Group::write` have only slots 0–2. A table key's low 16 bits
// are its index in the group (`Group::key2ndx`). Object Store tables are named
// `class_<Name>` (`object-store/object_store.cpp`); table `metadata`, column
// `version`, object 0 holds the schema version (−1 = not versioned).
//
// 6. Tables and the spec (`table.hpp`, `table.cpp` `Table::init`, `spec.hpp`, `spec.cpp`)
// ----------------------------------------------------------------------------------------
// Table top: 0 spec · 1 (legacy columns) · 2 cluster tree · 3 table key (tagged) ·
// 4 search index refs (by leaf index; non-zero = indexed) · 5 column-key counter ·
// 6 version · 7 opposite table keys (by leaf index: link targets) · 8 opposite
// columns · 9 sequence · 10 collision map · 11 primary-key ColKey (tagged) ·
// 12 flags (tagged; bits 0–1: 0 top-level, 1 embedded, 2 asymmetric) · 13 tombstones
// (a cluster tree of unresolved-link targets, never read here).
// Spec: [types, names, attributes, (vacant), enum-key lists, column keys], one entry
// per column in schema order. Backlink columns (type 14) have no name and come last;
// they are not properties. The upper 16 bits of a dictionary column's type are the
// key type (2 string; 0 int).
// ColKey (`keys.hpp`): bits 0–15 leaf index (slot index+1 in every cluster), 16–21
// column type, 22–29 attributes, 30–61 a tag. Column types (`column_type.hpp`): Int 0,
// Bool 1, String 2, Binary 4, Mixed 6, Timestamp 8, Float 9, Double 10, Decimal 11,
// Link 12, LinkList 13 (≤ 23), BackLink 14, ObjectId 15, TypedLink 16, UUID 17.
// Attributes: indexed 1, unique 2, strong links 8, nullable 16, list 32, dictionary
// 64, set 128 (full-text 256 lives only in the spec's attribute array).
// The Object Store derives a property from a ColKey (`object_schema.cpp`): type from
// the column type, optional from "nullable", the collection from list/set/dictionary,
// the target class from the opposite table.
//
// 7. Cluster trees (`cluster.hpp`, `cluster.cpp`, `cluster_tree.cpp`)
// --------------------------------------------------------------------
// A table's objects live in a cluster tree. A leaf (no 0x80 flag) holds up to 256
// objects: slot 0 is their count (tagged: keys are offset+0…n−1) or a ref to an
// unsigned array of keys relative to the offset; slot 1+i is the leaf of the column
// whose leaf index is i. An inner node is [keys ref or 0, depth (tagged), subtree
// size (tagged), children…]; child i starts at key offset keys[i], or i << (8·depth)
// without a keys array, relative to the node's own offset. Walking children in order
// yields objects in ObjKey order. Since format 22 keys are sequential, not hashed.
//
// 8. Column leaves (`Cluster::create`, `column_type_traits.hpp`, each array class)
// --------------------------------------------------------------------------------
// - Int: `ArrayInteger`; nullable: `ArrayIntNull`, whose element 0 is the null
//   sentinel (values equal to it are null), values follow.
// - Bool: integers 0/1; 3 is null (`array_bool.hpp`).
// - Float/Double: `BasicArray`, 4/8 bytes per element (width type 1); null is the
//   NaN 0x7fc000aa / 0x7ff80000000000aa (`null.hpp`); any other NaN is a value.
// - String (`array_string.cpp`): no refs + width in bytes = short strings
//   (`ArrayStringShort`: slots of 0/1/2/4…64 bytes, last byte = padding
//   `width−1−length`, `width` = null, width 0 = all null); no refs otherwise = enum
//   strings (indexes into the spec's key list for the column); refs without context
//   flag = medium (`ArraySmallBlobs` [end offsets, blob, nulls], strings zero-
//   terminated; the nulls array is missing in old files); refs with context flag =
//   big (`ArrayBigBlobs`, one blob ref per element, 0 = null). A blob (`ArrayBlob`)
//   is bytes (width type 2); one with the context flag is a chain of blobs (values
//   over 16 MB − 16), read by concatenation (`ArrayBlob::get_at`).
// - Binary: `ArrayBinary`, the same small/big blob arrays, chosen by the context flag.
// - Timestamp: `ArrayTimestamp` [seconds as `ArrayIntNull`, nanoseconds]; Realm keeps
//   the nanoseconds' sign equal to the seconds'; the reader reports 0 ≤ ns < 10⁹.
// - Decimal128 (`array_decimal128.*`, `decimal128.*`): in format ≤ 23 16 bytes each.
//   In 24 a leaf picks one width for all its elements: 0 (all zero if the context
//   flag is set, else all null), 4 (BID32), 8 (BID64) or 16 (BID128); narrow values
//   are widened as the Intel library's `bid32_to_bid128`/`bid64_to_bid128` do, and
//   the null patterns 0x7c0000aa / 0x7c000000000000aa / {0xaa, 0x7c00…} map to null.
//   Text follows `Decimal128::to_string` (see RealmDecimal128.swift).
// - ObjectId / UUID (`array_fixed_bytes.*`): bytes in blocks of one null-bit byte and
//   8 values of 12 or 16 bytes; the element count is derived from the byte count.
// - Link: `ArrayKey`, key+1 (0 = null). Keys ≤ −2 are "unresolved" links to
//   tombstones, which Realm hides: null for a single link, skipped in link lists.
//   Links into an embedded table are read as the embedded object, inline.
// - TypedLink (`array_typed_link.hpp`): pairs (table key+1, key+1), 0 = null.
// - Collections: an `ArrayRef` of per-object roots (0 = empty).
//
// 9. Mixed (`array_mixed.hpp`, `array_mixed.cpp`)
// -----------------------------------------------
// A has-refs node [composite, ints, int pairs, strings, refs, keys] (the last two
// since format 24). A composite element is value << 8 | payload array << 5 |
// (data type + 1); 0 is null. Ints within 32 bits and bools are in the value; wider
// ints, floats and doubles (bit patterns) in `ints`; timestamps, decimals (low, high)
// and typed links (table key, key) are pairs; strings, binaries, ObjectIds and UUIDs
// are elements of the `strings` string leaf; data types 19 (list) and 21
// (dictionary) are refs into `refs` to nested collections (format 24).
//
// 10. Collections (`list.hpp`, `set.hpp`, `dictionary.cpp`, `collection_parent.cpp`)
// -----------------------------------------------------------------------------------
// Lists and sets are B+trees of the element type, with leaves as in section 8, except
// that link lists store keys without the +1 (`ArrayKeyNonNullable`, `bplustree.hpp`).
// A set is stored sorted, in Realm's order. A dictionary (format ≥ 23) is
// [keys B+tree (strings), values B+tree of mixed]; links in dictionaries are typed
// links. Nested collections in mixed values use the same layouts (a list is a B+tree
// of mixed; a dictionary the pair of trees).
//
// 11. Encryption (`util/encrypted_file_mapping.cpp`, `util/sha_crypto.cpp`)
// ------------------------------------------------------------------------
// The 64-byte key is an AES-256 key (bytes 0–31) and an HMAC-SHA224 key (32–63).
// The file is blocks of one IV-table page and up to 64 data pages of 4096 bytes; data
// position p is at file position p + (p/4096/64 + 1)·4096. Entry i of an IV table is
// {u32 iv1, u8 hmac1[28], u32 iv2, u8 hmac2[28]}. A page whose iv1 is 0 was never
// written (read as zeros). Otherwise HMAC-SHA224 of the ciphertext must match hmac1,
// or hmac2 (a write torn between the IV table and the page: then iv2 is the IV), and
// the page is AES-256-CBC decrypted without padding with IV = iv ‖ u64 data position ‖
// 4 zero bytes. An all-zero page whose HMAC fails is a "stale" page and reads as
// zeros, as in Realm. The decrypted size is the file size less its IV-table pages.
// A wrong key fails the first page's HMAC; a right HMAC key with a wrong AES key
// decrypts page 0 to noise without "T-DB". Both are reported as a wrong key.
//
// 12. Defensive reading
// ---------------------
// Every ref is checked (non-zero, 8-aligned, node inside the file, "AAAA" header,
// payload inside the file), every index against the node's count, every payload
// length against its element width; arithmetic on stored values wraps or is checked
// instead of trapping. Trees have depth limits, nesting of embedded objects and
// collections a limit of 64, and each read operation a work budget
// (`ReadSession`, charged per node and per element), so that cyclic or shared refs
// end in an error, not a hang.
//
// Counts are bounded by what holds them, before anything is allocated or looped
// over: a node's elements lie inside the file; a zero-width node (whose elements take
// no bytes) claims at most 65,536; a B+tree leaf or inner node holds at most 1,000
// (`REALM_MAX_BPNODE_SIZE`, `features.h`), a cluster leaf or inner node at most 256
// (`cluster_node_size`, `cluster_tree.cpp`); an inner node's recorded size equals its
// leaves'; a chained blob is no longer than the file. So a changed count (three bytes
// of a header) ends in `RealmFileError.corrupt`, not in a million invented elements.
//
// 13. Values that cannot be what Realm wrote
// ------------------------------------------
// Some bit patterns decode to no value Realm can have stored. They are refused with
// `RealmFileError.invalidValue` naming the class, object key and property, never
// altered: a string that is not valid UTF-8 (`String(decoding:)` would substitute
// U+FFFD; a vault string is a Swift `String`, which cannot hold such bytes, so keeping
// them is impossible and substituting would change the data without a word); a date
// whose nanoseconds are not within ±10⁹ (`timestamp.hpp`; a sign that differs from the
// seconds' is read as their sum, as Realm Core reads it); a decimal that is not a canonical BID encoding (IEEE 754 reads it as
// zero; the Intel library Realm uses never writes one); a Boolean other than 0 or 1
// (or 3, null); a mixed ObjectId or UUID of another length than 12 or 16 bytes. A
// table's primary key must be one of its columns, and table and column names UTF-8.
//
// What this cannot find: a change that yields another well-formed value. In an
// encrypted file that includes changes Realm's format lets through (section 11): the
// HMAC covers a page's ciphertext but not its IV, so whoever can write the file can
// change `iv1` and thereby XOR the page's first 4 plaintext bytes (AES-CBC applies the
// IV to the first 16-byte block; the rest of the IV is the page's position and zeros),
// set `iv1` to 0 so that a written page reads as zeros, or put an older or another
// page's ciphertext with its IV-table entry in a page's place (the HMAC binds neither
// position nor version). Such a file decodes as far as its structure and values are
// consistent; an encrypted Realm file is as authentic as its storage was.
