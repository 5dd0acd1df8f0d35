/// Options shared by several verbs, declared once.
enum CommonOptions {
  /// How long a writing verb waits for the write lock (mn.md §6); the dispatcher reads it.
  static let wait = Option.seconds(
    "wait", default: 10, help: "Wait this long for another writer's lock before giving up with 75.")
}
