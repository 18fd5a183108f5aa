import Foundation
import Testing
import VaultTestSupport
@testable import VaultKit

/// One row of the query table: a query, its arguments, and the oracle that
/// says which people of the fixture match (plain Swift over `PersonRow`,
/// written independently of the SQL compiler).
struct QueryCase: CustomStringConvertible, Sendable {
    let query: String
    let arguments: [(any Sendable)?]
    let matches: @Sendable (PersonRow) -> Bool
    init(_ query: String, _ arguments: (any Sendable)?..., matches: @escaping @Sendable (PersonRow) -> Bool) {
        self.query = query
        self.arguments = arguments
        self.matches = matches
    }
    var description: String { query }
}

// Oracle helpers.
private func fold(_ s: String, case c: Bool = true, diacritics d: Bool = false) -> String {
    var options: String.CompareOptions = []
    if c { options.insert(.caseInsensitive) }
    if d { options.insert(.diacriticInsensitive) }
    return s.folding(options: options, locale: nil)
}
private func pets(_ p: PersonRow) -> [PetRow] { p.pets.compactMap(QueryFixture.pet) }
private func friends(_ p: PersonRow) -> [PersonRow] { p.friends.compactMap(QueryFixture.person) }
private func friendOf(_ p: PersonRow) -> [PersonRow] { QueryFixture.people.filter { $0.friends.contains(p.id) } }
private func like(_ value: String, _ pattern: String) -> Bool {
    // * any run, ? one character.
    func match(_ v: Substring, _ p: Substring) -> Bool {
        guard let first = p.first else { return v.isEmpty }
        if first == "*" { return match(v, p.dropFirst()) || (!v.isEmpty && match(v.dropFirst(), p)) }
        guard let c = v.first else { return false }
        return (first == "?" || first == c) && match(v.dropFirst(), p.dropFirst())
    }
    return match(Substring(value), Substring(pattern))
}
private let ref2 = Date(timeIntervalSince1970: 0)

let queryCases: [QueryCase] = [
    // Constants and logic.
    QueryCase("TRUEPREDICATE") { _ in true },
    QueryCase("FALSEPREDICATE") { _ in false },
    QueryCase("truepredicate AND age > 30") { $0.age > 30 },
    QueryCase("NOT TRUEPREDICATE") { _ in false },
    QueryCase("age > 30 AND isActive == true") { $0.age > 30 && $0.isActive },
    QueryCase("age > 30 && isActive == false") { $0.age > 30 && !$0.isActive },
    QueryCase("age < 20 OR age > 80") { $0.age < 20 || $0.age > 80 },
    QueryCase("age < 20 || age > 80") { $0.age < 20 || $0.age > 80 },
    QueryCase("NOT age > 30") { !($0.age > 30) },
    QueryCase("!(age > 30)") { !($0.age > 30) },
    QueryCase("NOT (age > 30 OR isActive == false)") { !($0.age > 30 || !$0.isActive) },
    QueryCase("(age > 30 OR age < 10) AND isActive = true") { ($0.age > 30 || $0.age < 10) && $0.isActive },
    QueryCase("age > 30 OR age < 10 AND isActive = true") { $0.age > 30 || ($0.age < 10 && $0.isActive) },
    QueryCase("NOT NOT age > 30") { $0.age > 30 },
    QueryCase("((((age == 36))))") { $0.age == 36 },
    QueryCase("age > 30 and not isActive == true or id == 4") { ($0.age > 30 && !$0.isActive) || $0.id == 4 },

    // Integer comparisons, every operator spelling.
    QueryCase("age == 36") { $0.age == 36 },
    QueryCase("age = 36") { $0.age == 36 },
    QueryCase("age != 36") { $0.age != 36 },
    QueryCase("age <> 36") { $0.age != 36 },
    QueryCase("age < 36") { $0.age < 36 },
    QueryCase("age <= 36") { $0.age <= 36 },
    QueryCase("age =< 36") { $0.age <= 36 },
    QueryCase("age > 36") { $0.age > 36 },
    QueryCase("age >= 36") { $0.age >= 36 },
    QueryCase("age => 36") { $0.age >= 36 },
    QueryCase("36 < age") { $0.age > 36 },
    QueryCase("36 >= age") { $0.age <= 36 },
    QueryCase("age == %d", 62) { $0.age == 62 },
    QueryCase("age == %@", 62) { $0.age == 62 },
    QueryCase("age > %d AND age < %d", 10, 50) { $0.age > 10 && $0.age < 50 },
    QueryCase("age == $0 OR age == $1", 17, 85) { $0.age == 17 || $0.age == 85 },
    QueryCase("age == 0x11") { $0.age == 17 },
    QueryCase("age == -0") { $0.age == 0 },
    QueryCase("age > 36.5") { Double($0.age) > 36.5 },
    QueryCase("age == 36.0") { $0.age == 36 },
    QueryCase("age == %@", Int8(17)) { $0.age == 17 },
    QueryCase("age == %@", Int64(40)) { $0.age == 40 },
    QueryCase("age == %@", UInt32(40)) { $0.age == 40 },
    QueryCase("age BETWEEN {17, 40}") { (17...40).contains($0.age) },
    QueryCase("age BETWEEN %@", [30, 70]) { (30...70).contains($0.age) },
    QueryCase("age IN {0, 17, 85}") { [0, 17, 85].contains($0.age) },
    QueryCase("age IN %@", [36, 62]) { [36, 62].contains($0.age) },
    QueryCase("age IN %@", Set([36, 62])) { [36, 62].contains($0.age) },
    QueryCase("age IN {}") { _ in false },
    QueryCase("NOT age IN {36, 62}") { ![36, 62].contains($0.age) },
    QueryCase("id == 3") { $0.id == 3 },
    QueryCase("id IN {1, 2, 99}") { [1, 2].contains($0.id) },

    // Floating point, optional.
    QueryCase("height > 160") { ($0.height ?? -1) > 160 },
    QueryCase("height >= 160") { ($0.height ?? -1) >= 160 },
    QueryCase("height == 165.5") { $0.height == 165.5 },
    QueryCase("height == nil") { $0.height == nil },
    QueryCase("height = NULL") { $0.height == nil },
    QueryCase("height != nil") { $0.height != nil },
    QueryCase("height != 160") { $0.height != 160 },
    QueryCase("NOT height > 160") { !(($0.height ?? -1) > 160) },
    QueryCase("height < %f", 155.0) { ($0.height ?? 1e9) < 155 },
    QueryCase("height BETWEEN {150, 166}") { $0.height.map { (150...166).contains($0) } ?? false },
    QueryCase("height IN {0, 190, nil}") { $0.height == 0 || $0.height == 190 || $0.height == nil },
    QueryCase("height == %@", NSNull()) { $0.height == nil },
    QueryCase("height == %@", Optional<Double>.none as any Sendable) { $0.height == nil },
    QueryCase("height == %@", Optional<Double>.some(190) as any Sendable) { $0.height == 190 },
    QueryCase("score > 7") { $0.score > 7 },
    QueryCase("score == 8.25") { $0.score == 8.25 },
    QueryCase("score == %@", Float(6.5)) { $0.score == 6.5 },
    QueryCase("score < 0") { $0.score < 0 },
    QueryCase("score >= age") { Double($0.score) >= Double($0.age) },
    QueryCase("height > age") { ($0.height ?? -1) > Double($0.age) && $0.height != nil },
    QueryCase("1e2 < height") { ($0.height ?? 0) > 100 },

    // Bool.
    QueryCase("isActive == true") { $0.isActive },
    QueryCase("isActive == TRUE") { $0.isActive },
    QueryCase("isActive == YES") { $0.isActive },
    QueryCase("isActive == false") { !$0.isActive },
    QueryCase("isActive != true") { !$0.isActive },
    QueryCase("isActive == %@", true) { $0.isActive },
    QueryCase("isActive == 1") { $0.isActive },
    QueryCase("isActive IN {false}") { !$0.isActive },

    // Strings: equality, case and diacritic modifiers.
    QueryCase("name == 'Ada Lovelace'") { $0.name == "Ada Lovelace" },
    QueryCase("name == \"Ada Lovelace\"") { $0.name == "Ada Lovelace" },
    QueryCase("name == %@", "Grace Hopper") { $0.name == "Grace Hopper" },
    QueryCase("name ==[c] 'ADA LOVELACE'") { fold($0.name) == "ada lovelace" },
    QueryCase("name ==[c] 'ADA BYRON'") { fold($0.name) == "ada byron" },
    QueryCase("name ==[d] 'Emile Zola'") { fold($0.name, case: false, diacritics: true) == "Emile Zola" },
    QueryCase("name ==[cd] 'EMILE ZOLA'") { fold($0.name, diacritics: true) == "emile zola" },
    QueryCase("name == 'emile zola'") { $0.name == "emile zola" },
    QueryCase("name ==[c] 'émile zola'") { fold($0.name) == fold("émile zola") },
    QueryCase("name !=[c] 'ada byron'") { fold($0.name) != "ada byron" },
    QueryCase("name != 'Ada Lovelace'") { $0.name != "Ada Lovelace" },
    QueryCase("name IN {'Ada Lovelace', 'ada byron'}") { ["Ada Lovelace", "ada byron"].contains($0.name) },
    QueryCase("name IN[c] {'ADA LOVELACE', 'ADA BYRON'}") { ["ada lovelace", "ada byron"].contains(fold($0.name)) },
    QueryCase("name < 'B'") { $0.name < "B" },
    QueryCase("name >= 'a'") { $0.name >= "a" },
    QueryCase("name BETWEEN {'A', 'C'}") { $0.name >= "A" && $0.name <= "C" },
    QueryCase("nickname == nil") { $0.nickname == nil },
    QueryCase("nickname != nil") { $0.nickname != nil },
    QueryCase("nickname == ''") { $0.nickname == "" },
    QueryCase("nickname ==[c] 'ada'") { $0.nickname.map { fold($0) == "ada" } ?? false },
    QueryCase("nickname != 'ADA'") { $0.nickname != "ADA" },
    QueryCase("nickname ==[cd] 'le maitre'") { $0.nickname.map { fold($0, diacritics: true) == "le maitre" } ?? false },
    QueryCase("name == nickname") { $0.name == $0.nickname },
    QueryCase("name !=[c] nickname") { p in p.nickname.map { fold(p.name) != fold($0) } ?? true },

    // Strings: BEGINSWITH, ENDSWITH, CONTAINS, LIKE.
    QueryCase("name BEGINSWITH 'Ada'") { $0.name.hasPrefix("Ada") },
    QueryCase("name BEGINSWITH[c] 'ada'") { fold($0.name).hasPrefix("ada") },
    QueryCase("name BEGINSWITH %@", "É") { $0.name.hasPrefix("É") },
    QueryCase("name BEGINSWITH[d] 'E'") { fold($0.name, case: false, diacritics: true).hasPrefix("E") },
    QueryCase("name BEGINSWITH[cd] 'e'") { fold($0.name, diacritics: true).hasPrefix("e") },
    QueryCase("name BEGINSWITH[cd] 'a'") { fold($0.name, diacritics: true).hasPrefix("a") },
    QueryCase("name BEGINSWITH ''") { _ in true },
    QueryCase("name ENDSWITH 'Zola'") { $0.name.hasSuffix("Zola") },
    QueryCase("name ENDSWITH[c] 'BYRON'") { fold($0.name).hasSuffix("byron") },
    QueryCase("name ENDSWITH 'Straße'") { $0.name.hasSuffix("Straße") },
    QueryCase("name ENDSWITH 'ace Lovelace Ada'") { _ in false },
    QueryCase("name CONTAINS 'ace'") { $0.name.contains("ace") },
    QueryCase("name CONTAINS[c] 'LOVE'") { fold($0.name).contains("love") },
    QueryCase("name CONTAINS[c] %@ OR nickname CONTAINS[c] %@", "ada", "ada") { fold($0.name).contains("ada") || ($0.nickname.map { fold($0).contains("ada") } ?? false) },
    QueryCase("name CONTAINS[cd] 'mil'") { fold($0.name, diacritics: true).contains("mil") },
    QueryCase("name CONTAINS 'ß'") { $0.name.contains("ß") },
    QueryCase("name CONTAINS '?*['") { $0.name.contains("?*[") },
    QueryCase("NOT name CONTAINS 'a'") { !$0.name.contains("a") },
    QueryCase("nickname CONTAINS 'a'") { $0.nickname?.contains("a") ?? false },
    QueryCase("NOT nickname CONTAINS 'a'") { !($0.nickname?.contains("a") ?? false) },
    QueryCase("name LIKE 'Ada*'") { like($0.name, "Ada*") },
    QueryCase("name LIKE '*a*'") { like($0.name, "*a*") },
    QueryCase("name LIKE '?da*'") { like($0.name, "?da*") },
    QueryCase("name LIKE[c] 'ADA*'") { like(fold($0.name), "ada*") },
    QueryCase("name LIKE 'Bob\\\\?\\\\*[x]'") { $0.name == "Bob?*[x]" },
    QueryCase("name LIKE 'Bob??[x]'") { like($0.name, "Bob??[x]") },
    QueryCase("nickname LIKE 'b*b'") { $0.nickname.map { like($0, "b*b") } ?? false },
    QueryCase("name LIKE '*'") { _ in true },
    QueryCase("name BEGINSWITH nickname") { p in p.nickname.map { p.name.hasPrefix($0) } ?? false },
    QueryCase("name CONTAINS[c] nickname") { p in p.nickname.map { $0.isEmpty || fold(p.name).contains(fold($0)) } ?? false },

    // Dates, Decimal, UUID-free scalars.
    QueryCase("born < %@", ref2) { $0.born < ref2 },
    QueryCase("born >= %@", ref2) { $0.born >= ref2 },
    QueryCase("born BETWEEN %@", [Date(timeIntervalSince1970: -4_100_000_000), Date(timeIntervalSince1970: 600_000_000)]) {
        $0.born >= Date(timeIntervalSince1970: -4_100_000_000) && $0.born <= Date(timeIntervalSince1970: 600_000_000)
    },
    QueryCase("born > T0:0") { $0.born > ref2 },
    QueryCase("born == %@", Date(timeIntervalSince1970: 1_000_000_000)) { $0.id == 4 },
    QueryCase("balance > 100") { $0.balance > 100 },
    QueryCase("balance > 1000.5") { $0.balance > Decimal(string: "1000.5")! },
    QueryCase("balance == %@", Decimal(string: "1200.5")!) { $0.balance == Decimal(string: "1200.5")! },
    QueryCase("balance == 1200.5") { $0.balance == Decimal(string: "1200.5")! },
    QueryCase("balance < 0") { $0.balance < 0 },
    QueryCase("balance < %@", Decimal(string: "0.01")!) { $0.balance < Decimal(string: "0.01")! },
    QueryCase("balance BETWEEN {0, 100}") { $0.balance >= 0 && $0.balance <= 100 },
    QueryCase("balance > %@", Decimal(string: "1e19")!) { $0.balance > Decimal(string: "1e19")! },
    QueryCase("balance IN {99.99, -15}") { $0.balance == Decimal(string: "99.99")! || $0.balance == -15 },
    QueryCase("avatar == nil") { $0.avatar == nil },
    QueryCase("avatar == %@", Data([1, 2, 3])) { $0.avatar == Data([1, 2, 3]) },
    QueryCase("avatar BEGINSWITH %@", Data([1, 2])) { $0.avatar.map { $0.starts(with: [1, 2]) } ?? false },
    QueryCase("avatar CONTAINS %@", Data([2])) { $0.avatar?.contains(2) ?? false },
    QueryCase("avatar == B64\"AQID\"") { $0.avatar == Data([1, 2, 3]) },
    QueryCase("avatar.@count == 1") { $0.avatar?.count == 1 },
    QueryCase("name.@count > 10") { $0.name.unicodeScalars.count > 10 },
    QueryCase("name.@size == 11") { $0.name.unicodeScalars.count == 11 },

    // Enums compare by raw value.
    QueryCase("mood == 'happy'") { $0.mood == .happy },
    QueryCase("mood == %@", Mood.grumpy) { $0.mood == .grumpy },
    QueryCase("mood != %@", Mood.calm) { $0.mood != .calm },
    QueryCase("mood IN %@", [Mood.calm, Mood.happy]) { $0.mood != .grumpy },
    QueryCase("mood BEGINSWITH 'g'") { $0.mood.rawValue.hasPrefix("g") },
    QueryCase("level == %@", Level.high) { $0.level == .high },
    QueryCase("level == 2") { $0.level == .mid },
    QueryCase("level > %@", Level.low) { ($0.level?.rawValue ?? 0) > 1 },
    QueryCase("level == nil") { $0.level == nil },
    QueryCase("level == %@", Optional<Level>.none as any Sendable) { $0.level == nil },
    QueryCase("level IN {1, 3}") { $0.level == .low || $0.level == .high },

    // Embedded objects and to-one links.
    QueryCase("address.city == 'London'") { $0.city == "London" },
    QueryCase("address.city ==[c] 'london'") { $0.city.map { fold($0) == "london" } ?? false },
    QueryCase("address.city ==[cd] 'zurich'") { $0.city.map { fold($0, diacritics: true) == "zurich" } ?? false },
    QueryCase("address == nil") { $0.city == nil },
    QueryCase("address != nil") { $0.city != nil },
    QueryCase("address.zip == nil") { $0.zip == nil },
    QueryCase("address.zip != nil") { $0.zip != nil },
    QueryCase("address.country IN {'UK', 'FR'}") { ["UK", "FR"].contains($0.country ?? "") },
    QueryCase("NOT address.city BEGINSWITH 'L'") { !($0.city?.hasPrefix("L") ?? false) },
    QueryCase("pet == nil") { $0.pet == nil },
    QueryCase("pet.name == 'Rex'") { $0.pet.flatMap(QueryFixture.pet)?.name == "Rex" },
    QueryCase("pet.age > 5") { ($0.pet.flatMap(QueryFixture.pet)?.age ?? 0) > 5 },
    QueryCase("pet.species == 'dog' AND age < 40") { $0.pet.flatMap(QueryFixture.pet)?.species == "dog" && $0.age < 40 },
    QueryCase("pet.age > age") { p in (p.pet.flatMap(QueryFixture.pet)?.age ?? Int.min) > p.age },
    QueryCase("pet.owners.@count > 0") { p in p.pet.map { id in QueryFixture.people.contains { $0.pets.contains(id) } } ?? false },

    // To-many: lists and sets of objects, implicit ANY, quantifiers.
    QueryCase("pets.species == 'cat'") { pets($0).contains { $0.species == "cat" } },
    QueryCase("ANY pets.species == 'cat'") { pets($0).contains { $0.species == "cat" } },
    QueryCase("SOME pets.species == 'cat'") { pets($0).contains { $0.species == "cat" } },
    QueryCase("ALL pets.species == 'dog'") { pets($0).allSatisfy { $0.species == "dog" } },
    QueryCase("NONE pets.species == 'dog'") { !pets($0).contains { $0.species == "dog" } },
    QueryCase("ALL pets.age < 10") { pets($0).allSatisfy { $0.age < 10 } },
    QueryCase("NOT ANY pets.age > 5") { !pets($0).contains { $0.age > 5 } },
    QueryCase("ANY pets.name BEGINSWITH[cd] 'e'") { pets($0).contains { fold($0.name, diacritics: true).hasPrefix("e") } },
    QueryCase("ANY pets.age BETWEEN {2, 3}") { pets($0).contains { (2...3).contains($0.age) } },
    QueryCase("ANY pets.age IN {7, 30}") { pets($0).contains { [7, 30].contains($0.age) } },
    QueryCase("ANY pets.age > age") { p in pets(p).contains { $0.age > p.age } },
    QueryCase("ANY friends.name BEGINSWITH 'Ada'") { friends($0).contains { $0.name.hasPrefix("Ada") } },
    QueryCase("ANY friends.age > 80") { friends($0).contains { $0.age > 80 } },
    QueryCase("ALL friends.age > 30") { friends($0).allSatisfy { $0.age > 30 } },
    QueryCase("ANY friends.address.city == 'London'") { friends($0).contains { $0.city == "London" } },
    QueryCase("ANY friends.pets.species == 'parrot'") { friends($0).contains { pets($0).contains { $0.species == "parrot" } } },
    QueryCase("ANY friends.friends.id == 4") { friends($0).contains { $0.friends.contains(4) } },
    QueryCase("friends.@count == 0") { $0.friends.isEmpty },
    QueryCase("friends.@count >= 2") { $0.friends.count >= 2 },
    QueryCase("friends.@size == 2") { $0.friends.count == 2 },
    QueryCase("pets.@count == 1") { $0.pets.count == 1 },
    QueryCase("pets.@count > friends.@count") { $0.pets.count > $0.friends.count },
    QueryCase("pets.@sum.age > 10") { pets($0).map(\.age).reduce(0, +) > 10 },
    QueryCase("pets.@avg.age < 5") { p in !p.pets.isEmpty && Double(pets(p).map(\.age).reduce(0, +)) / Double(p.pets.count) < 5 },
    QueryCase("pets.@min.age == 1") { pets($0).map(\.age).min() == 1 },
    QueryCase("pets.@max.age >= 7") { (pets($0).map(\.age).max() ?? Int.min) >= 7 },
    QueryCase("friends.@max.age > age") { p in (friends(p).map(\.age).max() ?? Int.min) > p.age },
    QueryCase("friends.@avg.height > 160") { p in
        let heights = friends(p).compactMap(\.height)
        return !heights.isEmpty && heights.reduce(0, +) / Double(heights.count) > 160
    },

    // Value collections.
    QueryCase("tags == 'math'") { $0.tags.contains("math") },
    QueryCase("ANY tags == 'poetry'") { $0.tags.contains("poetry") },
    QueryCase("'math' IN tags") { $0.tags.contains("math") },
    QueryCase("%@ IN tags", "sea") { $0.tags.contains("sea") },
    QueryCase("ANY tags BEGINSWITH[c] 'PO'") { $0.tags.contains { $0.hasPrefix("po") } },
    QueryCase("ALL tags == 'math'") { $0.tags.allSatisfy { $0 == "math" } },
    QueryCase("NONE tags == 'math'") { !$0.tags.contains("math") },
    QueryCase("tags.@count == 0") { $0.tags.isEmpty },
    QueryCase("tags.@count > 1") { $0.tags.count > 1 },
    QueryCase("ANY tags IN {'navy', 'sea'}") { $0.tags.contains { ["navy", "sea"].contains($0) } },
    QueryCase("scores > 25") { $0.scores.contains { $0 > 25 } },
    QueryCase("ALL scores > 0") { $0.scores.allSatisfy { $0 > 0 } },
    QueryCase("scores.@sum > 50") { $0.scores.reduce(0, +) > 50 },
    QueryCase("scores.@sum == 0") { $0.scores.reduce(0, +) == 0 },
    QueryCase("scores.@min < 0") { ($0.scores.min() ?? 0) < 0 },
    QueryCase("scores.@max == 30") { $0.scores.max() == 30 },
    QueryCase("scores.@avg == 20") { !$0.scores.isEmpty && Double($0.scores.reduce(0, +)) / Double($0.scores.count) == 20 },
    QueryCase("scores.@count == 3") { $0.scores.count == 3 },
    QueryCase("ANY scores == age") { p in p.scores.contains(p.age) },

    // Maps.
    QueryCase("metadata['lang'] == 'en'") { $0.metadata["lang"] == "en" },
    QueryCase("metadata[\"lang\"] ==[c] 'EN'") { $0.metadata["lang"].map { fold($0) == "en" } ?? false },
    QueryCase("metadata[%@] == 'author'", "role") { $0.metadata["role"] == "author" },
    QueryCase("metadata['missing'] == nil") { _ in true },
    QueryCase("metadata['role'] == nil") { $0.metadata["role"] == nil },
    QueryCase("metadata['lang'] != 'en'") { $0.metadata["lang"] != "en" },
    QueryCase("metadata.@count == 0") { $0.metadata.isEmpty },
    QueryCase("metadata.@count >= 2") { $0.metadata.count >= 2 },
    QueryCase("ANY metadata.@allKeys == 'note'") { $0.metadata.keys.contains("note") },
    QueryCase("metadata.@allKeys ==[c] 'lang'") { $0.metadata.keys.contains { fold($0) == "lang" } },
    QueryCase("ANY metadata.@allValues == 'de'") { $0.metadata.values.contains("de") },
    QueryCase("metadata.@allValues CONTAINS '.'") { $0.metadata.values.contains { $0.contains(".") } },
    QueryCase("ALL metadata.@allValues == 'en'") { $0.metadata.values.allSatisfy { $0 == "en" } },
    QueryCase("ANY metadata == 'author'") { $0.metadata.values.contains("author") },

    // Backlinks.
    QueryCase("friendOf.@count == 0") { friendOf($0).isEmpty },
    QueryCase("friendOf.@count >= 2") { friendOf($0).count >= 2 },
    QueryCase("ANY friendOf.name BEGINSWITH 'Grace'") { friendOf($0).contains { $0.name.hasPrefix("Grace") } },
    QueryCase("ALL friendOf.age > 30") { friendOf($0).allSatisfy { $0.age > 30 } },
    QueryCase("ANY pets.owners.id == 4") { pets($0).contains { pet in QueryFixture.people.contains { $0.id == 4 && $0.pets.contains(pet.id) } } },

    // SUBQUERY.
    QueryCase("SUBQUERY(pets, $p, $p.species == 'cat' AND $p.age > 1).@count > 0") { pets($0).contains { $0.species == "cat" && $0.age > 1 } },
    QueryCase("SUBQUERY(pets, $p, $p.age < 5).@count == 2") { pets($0).filter { $0.age < 5 }.count == 2 },
    QueryCase("SUBQUERY(friends, $f, $f.age > 50 AND $f.isActive == true).@count >= 1") { friends($0).contains { $0.age > 50 && $0.isActive } },
    QueryCase("SUBQUERY(friends, $f, ANY $f.tags == 'math').@count == 2") { friends($0).filter { $0.tags.contains("math") }.count == 2 },
    QueryCase("SUBQUERY(scores, $s, $s > 5).@count >= 2") { $0.scores.filter { $0 > 5 }.count >= 2 },
    QueryCase("SUBQUERY(friendOf, $x, $x.id == 1).@size == 1") { friendOf($0).contains { $0.id == 1 } },
    QueryCase("SUBQUERY(pets, $p, NOT $p.name CONTAINS 'o').@count == 0") { !pets($0).contains { !$0.name.contains("o") } },

    // %K.
    QueryCase("%K == %@", "name", "Ada Lovelace") { $0.name == "Ada Lovelace" },
    QueryCase("%K.%K == 'Paris'", "address", "city") { $0.city == "Paris" },
    QueryCase("%K > 30", "pets.@count") { $0.pets.count > 30 },
    QueryCase("ANY %K.species == 'dog'", "pets") { pets($0).contains { $0.species == "dog" } },

    // Keywords are case-insensitive; whitespace is free.
    QueryCase("age>30&&isActive==true") { $0.age > 30 && $0.isActive },
    QueryCase("  age   >   30   ") { $0.age > 30 },
    QueryCase("name beginswith[C] 'ADA' or age between {80, 90}") { fold($0.name).hasPrefix("ada") || (80...90).contains($0.age) },
    QueryCase("any pets.species == 'dog' and none tags == 'math'") { pets($0).contains { $0.species == "dog" } && !$0.tags.contains("math") },
    QueryCase("name == 'a\\'b' OR name == \"q\\\"\"") { _ in false },
    QueryCase("name == '\\u00c9mile Zola'") { $0.name == "Émile Zola" },
]

@Suite("Query language: every operator, modifier, aggregate and key path against an oracle")
struct QueryLanguageTests {
    @Test("Each case returns exactly the people the oracle selects", arguments: StorageMode.allCases)
    func table(storage: StorageMode) throws {
        let directory = try TemporaryDirectory()
        let vault = try storage.openQueryFixture(directory)
        let all = vault.objects(QPerson.self)
        #expect(all.count == QueryFixture.people.count)
        var checked = 0
        for entry in queryCases + nilLinkQuantifierCases + boundKeyPathCases {
            let results = try all.filter(entry.query, arguments: entry.arguments)
            let expected = QueryFixture.people.filter(entry.matches).map(\.id)
            let actual = results.map(\.id)
            #expect(actual == expected, "\(entry.query)")
            #expect(results.count == expected.count, "count of \(entry.query)")
            checked += 1
        }
        #expect(checked > 250)
    }
}

/// Quantifiers through a nil to-one link: no elements, so NONE and ALL hold.
let nilLinkQuantifierCases: [QueryCase] = [
    QueryCase("NONE pet.owners.age > 1000") { _ in true },
    QueryCase("ALL pet.owners.age < 1000") { _ in true },
    QueryCase("ANY pet.owners.age < 1000") { $0.pet != nil },
    QueryCase("NONE pet.owners.name == 'Ada Lovelace'") { p in
        p.pet.map { id in !QueryFixture.people.contains { $0.pets.contains(id) && $0.name == "Ada Lovelace" } } ?? true
    },
    QueryCase("ALL pet.owners.isActive == true") { p in
        p.pet.map { id in QueryFixture.people.filter { $0.pets.contains(id) }.allSatisfy(\.isActive) } ?? true
    },
]

/// String operators on key paths that carry bindings of their own (map subscripts).
let boundKeyPathCases: [QueryCase] = [
    QueryCase("metadata['lang'] ENDSWITH 'n'") { $0.metadata["lang"]?.hasSuffix("n") ?? false },
    QueryCase("metadata['lang'] BEGINSWITH 'e'") { $0.metadata["lang"]?.hasPrefix("e") ?? false },
    QueryCase("metadata['role'] ENDSWITH[c] 'HOR'") { $0.metadata["role"]?.lowercased().hasSuffix("hor") ?? false },
    QueryCase("metadata['lang'] CONTAINS[c] 'E' AND metadata['note'] ENDSWITH 'y'") {
        ($0.metadata["lang"]?.lowercased().contains("e") ?? false) && ($0.metadata["note"]?.hasSuffix("y") ?? false)
    },
    QueryCase("ANY metadata.@allValues ENDSWITH 'r'") { $0.metadata.values.contains { $0.hasSuffix("r") } },
]
