import Foundation
import VaultKit

enum Status: String, PersistableEnum { case active, archived }
enum Priority: Int, PersistableEnum { case low = 1, high = 2 }

final class AllTypes: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var bool = false
    @Persisted var int = 0
    @Persisted var int8: Int8 = 0
    @Persisted var int16: Int16 = 0
    @Persisted var int32: Int32 = 0
    @Persisted var int64: Int64 = 0
    @Persisted var float: Float = 0
    @Persisted var double: Double = 0
    @Persisted var string = ""
    @Persisted var data = Data()
    @Persisted var date = Date(timeIntervalSinceReferenceDate: 0)
    @Persisted var uuid: UUID
    @Persisted var decimal: Decimal = 0
    @Persisted var objectId: ObjectId
    @Persisted var status = Status.active
    @Persisted var priority = Priority.low
    @Persisted var optBool: Bool?
    @Persisted var optInt: Int?
    @Persisted var optInt8: Int8?
    @Persisted var optInt16: Int16?
    @Persisted var optInt32: Int32?
    @Persisted var optInt64: Int64?
    @Persisted var optFloat: Float?
    @Persisted var optDouble: Double?
    @Persisted var optString: String?
    @Persisted var optData: Data?
    @Persisted var optDate: Date?
    @Persisted var optUUID: UUID?
    @Persisted var optDecimal: Decimal?
    @Persisted var optObjectId: ObjectId?
    @Persisted var optStatus: Status?
    @Persisted var optPriority: Priority?
}

final class Person: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var firstName = ""
    @Persisted(indexed: true) var email = ""
    @Persisted var heightCm: Float?
    @Persisted var status = Status.active
    @Persisted var bestFriend: Person?
    var scratch = 0
    override class func propertiesMapping() -> [String: String] { ["firstName": "first_name"] }
    convenience init(firstName: String, email: String = "") {
        self.init()
        self.firstName = firstName
        self.email = email
    }
}

/// A class with no primary key, inheriting stored properties.
class Animal: Object {
    @Persisted var name = ""
}

final class Dog: Animal {
    @Persisted var age = 0
    @Persisted var owner: Person?
}

// Invalid models, each for one error.
final class TwoPrimaryKeys: Object {
    @Persisted(primaryKey: true) var a = 0
    @Persisted(primaryKey: true) var b = 0
}

final class EmbeddedWithKey: EmbeddedObject {
    @Persisted(primaryKey: true) var id = 0
}

final class BadPrimaryKeyType: Object {
    @Persisted(primaryKey: true) var score = 0.5
}

final class AClassWhoseNameIsMuchTooLongForAVaultTableNameLimitOfFiftySevenBytes: Object {
    @Persisted var x = 0
}

final class LongPropertyName: Object {
    @Persisted var aPropertyWhoseNameIsMuchLongerThanTheSixtyThreeByteLimitOfVaultKit = 0
}

final class BadMapping: Object {
    @Persisted var x = 0
    override class func propertiesMapping() -> [String: String] { ["missing": "m"] }
}

// MARK: - A social app, ported from a Realm app

enum Role: Int, PersistableEnum { case member = 0, moderator = 1, admin = 2 }

final class Address: EmbeddedObject {
    @Persisted var street = ""
    @Persisted var city = ""
    @Persisted var country = ""
}

final class User: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted(indexed: true) var handle = ""
    @Persisted var displayName = ""
    @Persisted var role = Role.member
    @Persisted var address: Address?
    @Persisted var previousAddresses: List<Address>
    @Persisted var following: List<User>
    @Persisted var interests: MutableSet<String>
    @Persisted var metadata: Map<String, String>
    @Persisted var scores: Map<String, Int?>
    @Persisted(originProperty: "author") var posts: LinkingObjects<Post>
    @Persisted(originProperty: "following") var followers: LinkingObjects<User>
    override class func propertiesMapping() -> [String: String] { ["displayName": "display_name"] }
    convenience init(handle: String, name: String = "") {
        self.init()
        self.handle = handle
        self.displayName = name
    }
}

final class Tag: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted(originProperty: "tags") var posts: LinkingObjects<Post>
}

final class Post: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var author: User?
    @Persisted var body = ""
    @Persisted var status = Status.active
    @Persisted var created = Date()
    @Persisted var tags: MutableSet<Tag>
    @Persisted var comments: List<Comment>
}

final class Comment: Object {
    @Persisted(primaryKey: true) var _id: UUID
    @Persisted var author: User?
    @Persisted var text = ""
    @Persisted var replies: List<Comment>
    @Persisted(originProperty: "comments") var post: LinkingObjects<Post>
}

final class BadOrigin: Object {
    @Persisted var name = ""
    @Persisted(originProperty: "nope") var things: LinkingObjects<Person>
}

/// Models commonly declare their own `id`; it must not clash with anything VaultKit declares.
final class Task: Object, ObjectKeyIdentifiable {
    @Persisted var title = ""
}

final class Ticket: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var title = ""
}
