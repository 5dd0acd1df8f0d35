import Testing

@testable import AutomergeCodec
@testable import Operations

@Suite struct ChangeTimeTests {
  static let now: Int64 = 1_788_400_000

  static let parseCases: [(String, Int64)] = [
    ("2d", now - 172_800), ("1w", now - 604_800), ("90", now - 90), ("12h", now - 43_200),
    ("2026-09-01", 1_788_220_800 - 7200), ("2026-09-01T12:00", 1_788_264_000 - 7200),
    ("2026-09-01 12:00:30", 1_788_264_030 - 7200), ("2026-09-01T12:00Z", 1_788_264_000),
    ("2026-09-01T12:00:00+02:00", 1_788_256_800), ("2026-09-01T12:00-01:30", 1_788_269_400),
    ("2024-02-29", 1_709_164_800 - 7200), ("1970-01-01T00:00Z", 0),
  ]

  @Test(arguments: parseCases)
  func parses(_ text: String, _ expected: Int64) {
    #expect(ChangeTime.parse(text, now: Self.now, utcOffset: { _ in 7200 }) == expected)
  }

  @Test(arguments: [
    "", "yesterday", "2026-13-01", "2026-02-30", "2025-02-29", "2026-09-01T25:00", "2026-9-1",
    "2026-09-01T12", "2026-09-01T12:00+2", "2026-09-01X", "-2d",
  ])
  func refuses(_ text: String) {
    #expect(ChangeTime.parse(text, now: Self.now, utcOffset: { _ in 0 }) == nil)
  }

  @Test func formatsLocalAndUTC() {
    #expect(
      ChangeTime.format(1_788_264_000, utc: true, utcOffset: { _ in 7200 })
        == "2026-09-01 12:00:00Z")
    #expect(
      ChangeTime.format(1_788_264_000, utc: false, utcOffset: { _ in 7200 })
        == "2026-09-01 14:00:00 +0200")
    #expect(
      ChangeTime.format(1_788_264_000, utc: false, utcOffset: { _ in -16_200 })
        == "2026-09-01 07:30:00 -0430")
    // Years outside 0...9999 (a writer's nonsense time) are printed whole.
    #expect(
      ChangeTime.format(300_000_000_000, utc: true, utcOffset: { _ in 0 })
        == "11476-08-15 05:20:00Z")
    #expect(
      ChangeTime.format(-62_198_755_200, utc: false, utcOffset: { _ in 3600 })
        == "-0001-01-01 01:00:00 +0100")
  }

  @Test func changeTimesInMillisecondsAreRead() {
    #expect(ChangeTime.seconds(0) == nil)
    #expect(ChangeTime.seconds(1_788_264_000) == 1_788_264_000)
    #expect(ChangeTime.seconds(1_788_264_000_123) == 1_788_264_000)
  }

  @Test func actorsAreShortenedToTheirShortestUnambiguousPrefix() {
    func actor(_ hex: String) -> ActorId { ActorId(Hex.decode(hex) ?? []) }
    #expect(FolderLog.shortActorLength([]) == 7)
    #expect(FolderLog.shortActorLength([actor("aabbccddeeff0011"), actor("0123456789")]) == 7)
    #expect(
      FolderLog.shortActorLength([actor("aabbccddeeff0011"), actor("aabbccddee001122")]) == 11)
    // One actor a prefix of another: the shorter is shown whole (and one digit more).
    #expect(FolderLog.shortActorLength([actor("aabbccddee"), actor("aabbccddee01")]) == 11)
  }

  @Test func summaryColumnsCountEveryTimedChange() {
    func entry(_ actor: UInt8, _ time: Int64, _ doc: String) -> FolderLog.Entry {
      let change = Change(
        hash: ChangeHash(w0: UInt64(time), w1: 0, w2: 0, w3: 0), actors: [ActorId([actor])],
        seq: 1, startOp: 1, time: time, message: nil, deps: [], ops: [], extra: [], chunk: [])
      return FolderLog.Entry(document: doc, copy: nil, change: change, ops: 1)
    }
    let entries = [
      entry(1, 1000, "a"), entry(1, 1000 + 2400, "b"), entry(2, 1000 + 1200, "a"), entry(2, 0, "a"),
    ]
    let s = LogSummary(entries, since: nil, until: nil)
    #expect(s.start == 1000 && s.end == 3400)
    #expect(s.columnSeconds == 101)
    #expect(s.rows.map(\.changes) == [2, 2])
    #expect(s.rows[0].activity.first == 1 && s.rows[0].activity.last == 1)
    #expect(s.rows[1].activity.reduce(0, +) == 1, "the change without a time is not placed")
    #expect(s.rows[0].documents == ["a", "b"])
    #expect(s.maxColumn == 1)
    #expect(LogSummary.duration(90) == "90s" && LogSummary.duration(86_400 * 2 + 3600) == "2d 1h")
  }
}
