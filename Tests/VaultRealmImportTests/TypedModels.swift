import Foundation
import Testing
import VaultCore
import VaultKit
import VaultRealmImport
import VaultTestSupport

// Every property kind RealmSwift persists, declared as an app declares them: the
// models of the alltypes fixture, and of the two older files (Realm's sync metadata).

final class AllTypes: Object {
    @Persisted(primaryKey: true) var _id = 0
    @Persisted var req_int = 0
    @Persisted var opt_int: Int?
    @Persisted var list_int: List<Int>
    @Persisted var optlist_int: List<Int?>
    @Persisted var set_int: MutableSet<Int>
    @Persisted var map_int: Map<String, Int?>
    @Persisted var req_bool = false
    @Persisted var opt_bool: Bool?
    @Persisted var list_bool: List<Bool>
    @Persisted var optlist_bool: List<Bool?>
    @Persisted var set_bool: MutableSet<Bool>
    @Persisted var map_bool: Map<String, Bool?>
    @Persisted var req_float: Float = 0
    @Persisted var opt_float: Float?
    @Persisted var list_float: List<Float>
    @Persisted var optlist_float: List<Float?>
    @Persisted var set_float: MutableSet<Float>
    @Persisted var map_float: Map<String, Float?>
    @Persisted var req_double = 0.0
    @Persisted var opt_double: Double?
    @Persisted var list_double: List<Double>
    @Persisted var optlist_double: List<Double?>
    @Persisted var set_double: MutableSet<Double>
    @Persisted var map_double: Map<String, Double?>
    @Persisted var req_string = ""
    @Persisted var opt_string: String?
    @Persisted var list_string: List<String>
    @Persisted var optlist_string: List<String?>
    @Persisted var set_string: MutableSet<String>
    @Persisted var map_string: Map<String, String?>
    @Persisted var req_data = Data()
    @Persisted var opt_data: Data?
    @Persisted var list_data: List<Data>
    @Persisted var optlist_data: List<Data?>
    @Persisted var set_data: MutableSet<Data>
    @Persisted var map_data: Map<String, Data?>
    @Persisted var req_date = Date()
    @Persisted var opt_date: Date?
    @Persisted var list_date: List<Date>
    @Persisted var optlist_date: List<Date?>
    @Persisted var set_date: MutableSet<Date>
    @Persisted var map_date: Map<String, Date?>
    @Persisted var req_decimal: Decimal128
    @Persisted var opt_decimal: Decimal128?
    @Persisted var list_decimal: List<Decimal128>
    @Persisted var optlist_decimal: List<Decimal128?>
    @Persisted var set_decimal: MutableSet<Decimal128>
    @Persisted var map_decimal: Map<String, Decimal128?>
    @Persisted var req_objectId: ObjectId
    @Persisted var opt_objectId: ObjectId?
    @Persisted var list_objectId: List<ObjectId>
    @Persisted var optlist_objectId: List<ObjectId?>
    @Persisted var set_objectId: MutableSet<ObjectId>
    @Persisted var map_objectId: Map<String, ObjectId?>
    @Persisted var req_uuid: UUID
    @Persisted var opt_uuid: UUID?
    @Persisted var list_uuid: List<UUID>
    @Persisted var optlist_uuid: List<UUID?>
    @Persisted var set_uuid: MutableSet<UUID>
    @Persisted var map_uuid: Map<String, UUID?>
    @Persisted var mixed: AnyVaultValue
    @Persisted var list_mixed: List<AnyVaultValue>
    @Persisted var map_mixed: Map<String, AnyVaultValue>
    @Persisted var link: Target?
    @Persisted var list_link: List<Target>
    @Persisted var set_link: MutableSet<Target>
    @Persisted var map_link: Map<String, Target?>
    @Persisted var emb: Emb?
    @Persisted var list_emb: List<Emb>
}

final class Target: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted var value = 0
    @Persisted var owners: List<UUID>
}

final class Emb: EmbeddedObject {
    @Persisted var label = ""
    @Persisted var n: Int?
    @Persisted var child: Inner?
}

final class Inner: EmbeddedObject {
    @Persisted var label = ""
}

final class AppMetadata: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var deployment_model = ""
    @Persisted var location = ""
    @Persisted var hostname = ""
    @Persisted var ws_hostname = ""
}

final class FileActionMetadata: Object {
    @Persisted(primaryKey: true) var original_name = ""
    @Persisted var new_name: String?
    @Persisted var action = 0
    @Persisted var url = ""
    @Persisted var identity = ""
}

final class UserIdentity: Object {
    @Persisted var id = ""
    @Persisted var provider_type = ""
}

final class UserMetadata: Object {
    @Persisted var identity = ""
    @Persisted var local_uuid = ""
    @Persisted var marked_for_removal = false
    @Persisted var refresh_token: String?
    @Persisted var provider_type = ""
    @Persisted var access_token: String?
    @Persisted var identities: List<UserIdentity>
    @Persisted var state = 0
    @Persisted var device_id = ""
    @Persisted var profile_data = ""
    @Persisted var local_realm_paths: MutableSet<String>
}

final class current_user_identity: Object {
    @Persisted var current_user_identity = ""
}
