import Testing

@Suite struct BinaryTests {
  @Test func placeholder() { #expect(1 + 1 == 2) }
}
