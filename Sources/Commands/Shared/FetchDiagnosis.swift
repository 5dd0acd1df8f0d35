import Operations

/// What a fetch left to say: `fetch`, `migrate --fetch` and `watch --fetch` report the
/// warnings and the files that failed or are still missing alike.
enum FetchDiagnosis {
  /// Prints warnings and errors on standard error; returns the exit status.
  static func write(
    _ report: FetchReport, _ call: Invocation, _ env: Environment, timeout: Double
  )
    throws -> ExitStatus
  {
    let quiet = call.global.quiet
    for file in report.fetched where !quiet {
      if !file.sizeMatches, let declared = file.declaredSize, let size = file.fetchedSize {
        try env.stderr.write(
          "mn: warning: '\(file.logicalName)' has \(size) bytes, the placeholder declared \(declared)\n"
        )
      }
      for (stub, reason) in file.keptPlaceholders.sorted(by: { $0.key < $1.key }) {
        try env.stderr.write("mn: warning: cannot remove placeholder '\(stub)': \(reason)\n")
      }
    }
    for warning in report.warnings where call.global.verbose {
      try env.stderr.write("mn: warning: \(warning)\n")
    }
    for failure in report.failed {
      try env.stderr.write("mn: error: '\(failure.logicalName)': \(failure.reason)\n")
    }
    if !report.missing.isEmpty {
      let reasons = Set(report.missing.map(\.reason.description))
      let count = report.missing.count
      var message = "\(count) \(count == 1 ? "file is" : "files are") still not downloaded"
      if reasons == [FetchMissing.Reason.notDownloaded.description] {
        message +=
          " after \(timeout == timeout.rounded() ? String(Int(timeout)) : String(timeout))s"
      } else if reasons.count == 1, let reason = reasons.first {
        message += " (\(reason))"
      }
      try env.stderr.write("mn: error: \(message)\n")
      if !quiet { try env.stderr.write(report.missing.map { $0.logicalName + "\n" }.joined()) }
    }
    return ErrorReport.status(of: report)
  }
}
