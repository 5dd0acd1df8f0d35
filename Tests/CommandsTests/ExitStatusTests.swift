import Archive
import Testing

@testable import Commands

@Suite struct ExitStatusTests {
  @Test func sysexitsNumbers() {
    #expect(ExitStatus.usage.rawValue == 64)
    #expect(ExitStatus.tempFail.rawValue == 75)
    for status in ExitStatus.allCases { #expect(status.meaning.hasSuffix(".")) }
  }
}

@Suite struct ArchiveErrorReportTests {
  @Test func aMissingLibarchiveIsUnavailable() {
    let error = ArchiveError.libraryUnavailable(
      library: "libarchive.so.13", detail: "libarchive.so.13: cannot open shared object file")
    let (status, message, details) = ErrorReport.describe(error)
    #expect(status == .unavailable)
    #expect(message.hasPrefix("cannot load libarchive (libarchive.so.13): "))
    #expect(details.isEmpty)
  }
}
