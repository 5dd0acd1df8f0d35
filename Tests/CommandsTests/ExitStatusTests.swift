import Testing

@testable import Commands

@Suite struct ExitStatusTests {
  @Test func sysexitsNumbers() {
    #expect(ExitStatus.usage.rawValue == 64)
    #expect(ExitStatus.tempFail.rawValue == 75)
    for status in ExitStatus.allCases { #expect(status.meaning.hasSuffix(".")) }
  }
}
