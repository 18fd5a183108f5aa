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
