extension Reconstruction {
  /// Runs §7.5 steps 1 to 6 and returns the regenerated changes in row order.
  /// `spareCapacity`: room to reserve in the returned array beyond its changes.
  mutating func reconstruct(keepOps: Bool, keepChunks: Bool = true, spareCapacity: Int = 0)
    throws -> (changes: [Change], opCounts: [Int32])
  {
    let n = opCount
    let rows = rowActor.count

    // Steps 1-3: preds from succ lists, group by group; leftovers become del ops.
    var predStart = [Int32](repeating: 0, count: n + 1)
    var predFlat: [UInt64] = []
    predFlat.reserveCapacity(succKeys.count)
    var delId: [UInt64] = []
    var delObj: [UInt64] = []
    var delKey: [StoredKey] = []
    var delPredStart: [Int32] = []
    var delPredFlat: [UInt64] = []
    var pairs: [(succ: UInt64, pred: UInt64)] = []
    var matched: [Bool] = []

    var succPos = 0
    var i = 0
    var previousObject: UInt64 = 0
    while i < n {
      let obj = try objectKey(i)
      guard obj >= previousObject else { throw fail("ops out of order") }
      previousObject = obj
      let k0 = try key(i)
      let group: StoredKey = isInsert(i) ? .element(Reconstruction.pack(idCtr[i], idActor[i])) : k0
      var j = i
      pairs.removeAll(keepingCapacity: true)
      while j < n {
        if j > i {
          guard try objectKey(j) == obj else { break }
          let kj = try key(j)
          if isInsert(j) || !sameKey(kj, group) { break }
        }
        let count = j < succNum.count ? Int(succNum[j]) : 0
        let id = Reconstruction.pack(idCtr[j], idActor[j])
        var previous: UInt64 = 0
        for s in succKeys[succPos..<(succPos + count)] {
          guard s > previous else {
            throw ColumnDecoder.fail(S.succCtr, chunk, "succ out of order")
          }
          previous = s
          pairs.append((s, id))
        }
        succPos += count
        j += 1
      }
      // Group [i, j). Every op must have a valid action and value (checked when built).
      if pairs.isEmpty {
        for o in i..<j { predStart[o + 1] = Int32(predFlat.count) }
      } else {
        pairs.sort { $0.succ != $1.succ ? $0.succ < $1.succ : $0.pred < $1.pred }
        matched.removeAll(keepingCapacity: true)
        matched.append(contentsOf: repeatElement(false, count: pairs.count))
        for o in i..<j {
          let id = Reconstruction.pack(idCtr[o], idActor[o])
          var lo = 0
          var hi = pairs.count
          while lo < hi {
            let mid = (lo + hi) / 2
            if pairs[mid].succ < id { lo = mid + 1 } else { hi = mid }
          }
          while lo < pairs.count && pairs[lo].succ == id {
            predFlat.append(pairs[lo].pred)
            matched[lo] = true
            lo += 1
          }
          predStart[o + 1] = Int32(predFlat.count)
        }
        var p = 0
        while p < pairs.count {
          if matched[p] {
            p += 1
            continue
          }
          let s = pairs[p].succ
          delId.append(s)
          delObj.append(obj)
          delKey.append(group)
          delPredStart.append(Int32(delPredFlat.count))
          while p < pairs.count && pairs[p].succ == s {
            delPredFlat.append(pairs[p].pred)
            p += 1
          }
        }
      }
      i = j
    }
    delPredStart.append(Int32(delPredFlat.count))
    let delCount = delId.count
    // The successor columns are consumed: free them before the changes are built.
    succNum = PackedUInts()
    succKeys = []

    // Step 5: each op belongs to the first change row of its actor whose maxOp ≥ counter.
    var rowsByActor = [[Int32]](repeating: [], count: actors.count)
    var nextSeq = [UInt64](repeating: 1, count: actors.count)
    for r in 0..<rows {
      let a = Int(rowActor[r])
      guard rowSeq[r] == nextSeq[a] else {
        throw ColumnDecoder.fail(
          S.changeSeq, chunk, "seq \(rowSeq[r]) of actor \(actors[a]) should be \(nextSeq[a])")
      }
      nextSeq[a] += 1
      if let last = rowsByActor[a].last, rowMaxOp[Int(last)] > rowMaxOp[r] {
        throw ColumnDecoder.fail(S.changeMaxOp, chunk, "max op decreases for actor \(actors[a])")
      }
      rowsByActor[a].append(Int32(r))
    }
    let total = n + delCount
    // The helpers read local copies, not `self`: a closure over `self` in this mutating
    // method makes the calls below copy the whole struct.
    let opCtr = idCtr
    let opActor = idActor
    let maxOps = rowMaxOp
    let actorIds = actors
    let ck = chunk
    @inline(__always) func counter(_ k: Int) -> UInt32 {
      k < n ? opCtr[k] : UInt32(truncatingIfNeeded: delId[k - n] >> 32)
    }
    /// The change row of op `k` (its actor's first row whose max op is ≥ its counter).
    func rowOf(_ k: Int) throws -> Int32 {
      let ctr = counter(k)
      let actor = k < n ? Int(opActor[k]) : Int(UInt32(truncatingIfNeeded: delId[k - n]))
      let list = rowsByActor[actor]
      var lo = 0
      var hi = list.count
      while lo < hi {
        let mid = (lo + hi) / 2
        if maxOps[Int(list[mid])] < ctr { lo = mid + 1 } else { hi = mid }
      }
      guard lo < list.count else {
        throw AutomergeDecodeError.invalidDocument(
          reason: "op \(ctr)@\(actorIds[actor]) belongs to no change (missing change)", offset: ck)
      }
      return list[lo]
    }
    var rowOfOp = [Int32](repeating: 0, count: total)
    var perRow = [Int32](repeating: 0, count: rows + 1)
    for k in 0..<total {
      let row = try rowOf(k)
      rowOfOp[k] = row
      perRow[Int(row) + 1] += 1
    }
    for r in 0..<rows { perRow[r + 1] += perRow[r] }
    // Each op goes straight to its place in counter order: a valid change's ops are
    // numbered `startOp...maxOp` with `startOp = maxOp + 1 - count`. A row whose ops do
    // not fit (a counter below startOp, or two on one slot) is marked `misplaced`: it is
    // invalid, and step 6 rebuilds its op list to throw the error in row order.
    var opsByRow = [Int32](repeating: -1, count: total)
    var misplaced = [Bool](repeating: false, count: rows)
    for k in 0..<total {
      let r = Int(rowOfOp[k])
      let start = Int(perRow[r])
      let slot = Int64(counter(k)) + Int64(Int(perRow[r + 1]) - start) - 1 - Int64(rowMaxOp[r])
      if slot >= 0, opsByRow[start + Int(slot)] < 0 {
        opsByRow[start + Int(slot)] = Int32(k)
      } else {
        misplaced[r] = true
      }
    }
    rowOfOp = []

    // Step 6: build each change and hash it.
    var encoder = ChangeEncoder()
    var changes: [Change] = []
    changes.reserveCapacity(rows + spareCapacity)
    var opCounts: [Int32] = []
    opCounts.reserveCapacity(rows)
    var local = [Int32](repeating: -1, count: actors.count)
    var others: [Int32] = []
    var soloActors: [[ActorId]?] = Array(repeating: nil, count: actors.count)
    var actorTables: [[Int32]: [ActorId]] = [:]
    var lastAuthor = -1
    var lastOthers: [Int32] = []
    var lastTable: [ActorId] = []
    var ops: [Op] = []
    let arena = stringArena()
    try arena.bytes.withUnsafeBufferPointer { arenaBytes in
      try valRaw.withUnsafeBufferPointer { values in
        let text = StringTable(bytes: arenaBytes, start: arena.start)
        for r in 0..<rows {
          let author = Int(rowActor[r])
          let start = Int(perRow[r])
          let end = Int(perRow[r + 1])
          let count = end - start
          let maxOp = UInt64(rowMaxOp[r])
          if misplaced[r] {
            // The checks of a valid row, on the row's ops in counter order; one fails.
            var counters: [(ctr: UInt32, k: Int32)] = []
            for k in 0..<total where try rowOf(k) == Int32(r) {
              counters.append((counter(k), Int32(k)))
            }
            counters.sort { $0.ctr < $1.ctr }
            guard UInt64(count) <= maxOp || (count == 0) else {
              throw fail("change \(r) has more ops than its max op")
            }
            let startOp = maxOp + 1 - UInt64(count)
            guard startOp >= 1 else { throw fail("change \(r) has start op 0") }
            for (q, c) in counters.enumerated() where UInt64(c.ctr) != startOp + UInt64(q) {
              throw fail("ops of change \(r) are not consecutive from \(startOp)")
            }
            throw fail("ops of change \(r) are not consecutive from \(startOp)")
          }
          guard UInt64(count) <= maxOp || (count == 0) else {
            throw fail("change \(r) has more ops than its max op")
          }
          let startOp = maxOp + 1 - UInt64(count)
          guard startOp >= 1 else { throw fail("change \(r) has start op 0") }
          let counters = opsByRow[start..<end]

          // Actors other than the author, sorted by bytes (= index order).
          others.removeAll(keepingCapacity: true)
          @inline(__always) func note(_ a: Int) {
            if a != author && local[a] < 0 {
              local[a] = 0
              others.append(Int32(a))
            }
          }
          for c in counters {
            let k = Int(c)
            let objKey: UInt64
            let opKey: StoredKey
            let ps: Int
            let pe: Int
            if k < n {
              objKey = try objectKey(k)
              opKey = try key(k)
              ps = Int(predStart[k])
              pe = Int(predStart[k + 1])
            } else {
              objKey = delObj[k - n]
              opKey = delKey[k - n]
              ps = Int(delPredStart[k - n])
              pe = Int(delPredStart[k - n + 1])
            }
            if objKey != 0 { note(Int(UInt32(truncatingIfNeeded: objKey))) }
            if case .element(let e) = opKey { note(Int(UInt32(truncatingIfNeeded: e))) }
            if k < n {
              for p in ps..<pe { note(Int(UInt32(truncatingIfNeeded: predFlat[p]))) }
            } else {
              for p in ps..<pe { note(Int(UInt32(truncatingIfNeeded: delPredFlat[p]))) }
            }
          }
          others.sort()
          local[author] = 0
          for (q, a) in others.enumerated() { local[Int(a)] = Int32(q + 1) }
          let table: [ActorId]
          if others.isEmpty {
            if let t = soloActors[author] {
              table = t
            } else {
              table = [actors[author]]
              soloActors[author] = table
            }
          } else if author == lastAuthor && others == lastOthers {
            // Consecutive changes often share their actor table: no key to build.
            table = lastTable
          } else {
            let key = [Int32(author)] + others
            if let t = actorTables[key] {
              table = t
            } else {
              var t = [actors[author]]
              for a in others { t.append(actors[Int(a)]) }
              actorTables[key] = t
              table = t
            }
            lastAuthor = author
            lastOthers = others
            lastTable = table
          }

          // The chunk is encoded straight from the columns; `Op` values are built only when
          // they are kept.
          if keepOps {
            ops = []
            ops.reserveCapacity(count)
          }
          for c in counters {
            let k = Int(c)
            if k < n {
              try encodeStoredOp(
                k, local: local, predFlat: predFlat, predStart: predStart, into: &encoder,
                text: text, values: values)
              if keepOps {
                ops.append(try storedOp(k, local: local, predFlat: predFlat, predStart: predStart))
              }
            } else {
              let d = k - n
              let ps = Int(delPredStart[d])
              let pe = Int(delPredStart[d + 1])
              encodeObject(delObj[d], local, into: &encoder)
              encodeKey(delKey[d], local, into: &encoder, text: text)
              encoder.appendFlags(insert: false, action: Action.delete.rawValue)
              encoder.appendNullValue()
              encoder.appendPredCount(pe - ps)
              for p in ps..<pe { encodePred(delPredFlat[p], local, into: &encoder) }
              encoder.appendExpand(false)
              encoder.appendMarkName(nil)
              if keepOps {
                var pred: [OpId] = []
                pred.reserveCapacity(pe - ps)
                for p in ps..<pe { pred.append(localId(delPredFlat[p], local)) }
                ops.append(
                  Op(
                    object: delObj[d] == 0 ? .root : .object(localId(delObj[d], local)),
                    key: modelKey(delKey[d], local), insert: false, action: .delete,
                    value: .null, pred: pred))
              }
            }
          }
          local[author] = -1
          for a in others { local[Int(a)] = -1 }

          var deps: [ChangeHash] = []
          let ds = rowDepsStart[r]
          let de = rowDepsStart[r + 1]
          if de > ds {
            deps.reserveCapacity(de - ds)
            for q in ds..<de { deps.append(changes[Int(depsIndex[q])].hash) }
            deps.sort()
          }
          let message: String?
          if r < rowMessage.count, rowMessage[r] >= 0 {
            let m = messages[Int(rowMessage[r])]
            message = m.isEmpty ? nil : m
          } else {
            message = nil
          }
          let extra = extraBytes(r)
          let (chunkBytes, hash) = encoder.finish(
            actors: table, seq: rowSeq[r], startOp: startOp, time: rowTime[r], message: message,
            deps: deps,
            extra: extra, keepChunk: keepChunks)
          changes.append(
            Change(
              hash: hash, actors: table, seq: rowSeq[r], startOp: startOp, time: rowTime[r],
              message: message,
              deps: deps, ops: keepOps ? ops : [], extra: extra, chunk: chunkBytes))
          opCounts.append(Int32(truncatingIfNeeded: count))
        }
      }
    }
    return (changes, opCounts)
  }

  /// The UTF-8 bytes of every entry of `strings`, back to back, and where each starts.
  private func stringArena() -> (bytes: [UInt8], start: [Int]) {
    var bytes: [UInt8] = []
    var start: [Int] = []
    start.reserveCapacity(strings.count + 1)
    for var s in strings {
      start.append(bytes.count)
      s.withUTF8 { bytes.append(contentsOf: $0) }
    }
    start.append(bytes.count)
    return (bytes, start)
  }

  /// Validates stored op `k` as `storedOp` does (same checks, same order, same errors) and
  /// appends it to the change being encoded.
  @inline(__always) private func encodeStoredOp(
    _ k: Int, local: [Int32], predFlat: [UInt64], predStart: [Int32], into e: inout ChangeEncoder,
    text: StringTable, values: UnsafeBufferPointer<UInt8>
  ) throws {
    let objKey = try objectKey(k)
    let opKey = try key(k)
    let a = actionValue(k)
    guard a <= 7 else {
      throw ColumnDecoder.fail(
        S.action, chunk,
        "unrecognized action index \(a == ColumnDecoder.nullUInt ? "null" : String(a))")
    }
    let m = meta(k)
    let start = valueStart(k)
    try ValueDecoder.validate(meta: m, raw: values, start: start, spec: S.valRaw, chunk: chunk)
    if a == UInt64(Action.increment.rawValue) {
      let code = m & 0x0f
      guard code == 3 || code == 4 else {
        throw ColumnDecoder.fail(S.valMeta, chunk, "increment without an integer value")
      }
    }
    encodeObject(objKey, local, into: &e)
    encodeKey(opKey, local, into: &e, text: text)
    e.appendFlags(insert: isInsert(k), action: UInt8(truncatingIfNeeded: a))
    e.appendValue(
      meta: m, payload: UnsafeBufferPointer(rebasing: values[start..<(start + Int(m >> 4))]))
    let ps = Int(predStart[k])
    let pe = Int(predStart[k + 1])
    e.appendPredCount(pe - ps)
    for p in ps..<pe { encodePred(predFlat[p], local, into: &e) }
    e.appendExpand(k < expand.count ? expand[k] : false)
    if k < markName.count && markName[k] >= 0 {
      e.appendMarkName(text[Int(markName[k])])
    } else {
      e.appendMarkName(nil)
    }
  }

  @inline(__always) private func encodeObject(
    _ packed: UInt64, _ local: [Int32], into e: inout ChangeEncoder
  ) {
    if packed == 0 {
      e.appendRootObject()
    } else {
      let id = localId(packed, local)
      e.appendObject(actor: id.actor, counter: id.counter)
    }
  }

  @inline(__always) private func encodeKey(
    _ key: StoredKey, _ local: [Int32], into e: inout ChangeEncoder, text: StringTable
  ) {
    switch key {
    case .map(let s): e.appendMapKey(text[s])
    case .head: e.appendHeadKey()
    case .element(let v):
      let id = localId(v, local)
      e.appendElementKey(actor: id.actor, counter: id.counter)
    }
  }

  @inline(__always) private func encodePred(
    _ packed: UInt64, _ local: [Int32], into e: inout ChangeEncoder
  ) {
    let id = localId(packed, local)
    e.appendPred(actor: id.actor, counter: id.counter)
  }

  /// The extra bytes of change row `r` (a bytes value, code 7).
  private func extraBytes(_ r: Int) -> [UInt8] {
    guard r + 1 < extraStart.count else { return [] }
    let s = extraStart[r]
    let e = extraStart[r + 1]
    return e > s ? Array(extraRaw[s..<e]) : []
  }

  @inline(__always) private func localId(_ packed: UInt64, _ local: [Int32]) -> OpId {
    let a = Int(UInt32(truncatingIfNeeded: packed))
    return OpId(counter: UInt32(truncatingIfNeeded: packed >> 32), actor: UInt32(local[a]))
  }

  /// The model's key for a stored key, with change-local actor indices.
  @inline(__always) private func modelKey(_ key: StoredKey, _ local: [Int32]) -> Key {
    switch key {
    case .map(let s): return .map(strings[s])
    case .head: return .head
    case .element(let v): return .element(localId(v, local))
    }
  }

  private func storedOp(_ k: Int, local: [Int32], predFlat: [UInt64], predStart: [Int32]) throws
    -> Op
  {
    let objKey = try objectKey(k)
    let opKey = try key(k)
    let a = actionValue(k)
    guard a <= 7, let act = Action(rawValue: UInt8(a)) else {
      throw ColumnDecoder.fail(
        S.action, chunk,
        "unrecognized action index \(a == ColumnDecoder.nullUInt ? "null" : String(a))")
    }
    let value = try valRaw.withUnsafeBufferPointer {
      try ValueDecoder.decode(
        meta: meta(k), raw: $0, start: valueStart(k), spec: S.valRaw, chunk: chunk)
    }
    if act == .increment {
      switch value {
      case .int, .uint: break
      default: throw ColumnDecoder.fail(S.valMeta, chunk, "increment without an integer value")
      }
    }
    let ps = Int(predStart[k])
    let pe = Int(predStart[k + 1])
    var pred: [OpId] = []
    if pe > ps {
      pred.reserveCapacity(pe - ps)
      for p in ps..<pe { pred.append(localId(predFlat[p], local)) }
    }
    let name: String? = k < markName.count && markName[k] >= 0 ? strings[Int(markName[k])] : nil
    return Op(
      object: objKey == 0 ? .root : .object(localId(objKey, local)), key: modelKey(opKey, local),
      insert: isInsert(k), action: act, value: value, pred: pred,
      expand: k < expand.count ? expand[k] : false, markName: name)
  }
}
