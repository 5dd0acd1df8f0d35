# Homebrew formula for mn, built from source with `swift build`.
#
# `make dist` writes dist/mn.rb: this file with the url, version and sha256 filled in for
# the tarball it makes (`brew install --formula ./dist/mn.rb`). For a published release,
# put the release tarball's address and digest there instead.
class Mn < Formula
  desc "Command-line toolkit for a Minuta data folder"
  url "@URL@"
  version "@VERSION@"
  sha256 "@SHA256@"

  depends_on xcode: ["16.0", :build]
  depends_on "libarchive"
  depends_on "libdeflate"
  depends_on macos: :sonoma

  def install
    # The tarball has no .git: the commit `git archive` wrote into packaging/commit is the
    # one `mn --version` names.
    commit = File.read("packaging/commit").strip[0, 12]
    commit = "unknown" unless commit.match?(/\A\h{12}\z/)
    system "scripts/build-info.sh", commit
    system "swift", "build", "--disable-sandbox", "-c", "release", "-Xswiftc", "-DMN_BUILD_COMMIT"
    bin.install ".build/release/mn"
    man1.install Dir["man/*.1"]
    bash_completion.install "completions/mn.bash" => "mn"
    zsh_completion.install "completions/_mn"
    fish_completion.install "completions/mn.fish"
  end

  service do
    run [opt_bin/"mn", "watch"]
    keep_alive crashed: true
    log_path var/"log/mn-watch.log"
    error_log_path var/"log/mn-watch.log"
  end

  test do
    assert_match "mn #{version} (commit ", shell_output("#{bin}/mn --version")
    (testpath/"backups").mkpath
    ENV["MN_BACKUP_DIR"] = testpath/"backups"
    assert_empty shell_output("#{bin}/mn backups list")
  end
end
