/// The actor tables of the changes being built (§6.4: the author, then the other actors
/// sorted), shared between changes that have the same.
struct ActorTables {
  let actors: [ActorId]
  private var solo: [[ActorId]?]
  private var shared: [[Int32]: [ActorId]] = [:]
  private var lastAuthor = -1
  private var lastOthers: [Int32] = []
  private var lastTable: [ActorId] = []

  init(actors: [ActorId]) {
    self.actors = actors
    solo = Array(repeating: nil, count: actors.count)
  }

  /// The table of a change by `author` whose ops name the actors `others` (sorted).
  mutating func table(author: Int, others: [Int32]) -> [ActorId] {
    if others.isEmpty {
      if let t = solo[author] { return t }
      let t = [actors[author]]
      solo[author] = t
      return t
    }
    // Consecutive changes often share their actor table: no key to build.
    if author == lastAuthor && others == lastOthers { return lastTable }
    let key = [Int32(author)] + others
    let table: [ActorId]
    if let t = shared[key] {
      table = t
    } else {
      var t = [actors[author]]
      for a in others { t.append(actors[Int(a)]) }
      shared[key] = t
      table = t
    }
    lastAuthor = author
    lastOthers = others
    lastTable = table
    return table
  }
}
