extension CommandTable {
  /// The one-line summary of `mn` itself (the man page's NAME line and the help's first line).
  public static let abstract = "Work with Minuta data folders."

  /// The paragraphs of the top-level DESCRIPTION.
  public static let discussion = """
    mn finds, lists, downloads, merges, moves and archives the data folder of Minuta, a \
    local-first time tracker whose every record lives in an Automerge document in a plain, \
    synced folder.

    On macOS, in iCloud Drive (the app's default folder) and other File Provider folders \
    (Dropbox, OneDrive, Google Drive, Nextcloud): a file that is not downloaded is a \
    dataless file, listed as a placeholder and never downloaded by 'ls' or 'doctor'; 'fetch' \
    asks the system to download it and waits until it is current; a file whose newer \
    version is not downloaded yet is stale and is not merged until fetched; reads, writes \
    and removals are coordinated with the system (NSFileCoordinator); and iCloud's own \
    conflict versions are listed as copies (service icloud-version) and merged by \
    'merge-conflicts', which marks them resolved only after the merged file is written and \
    verified.

    Data goes to standard output and diagnostics to standard error. Every verb has its own \
    help: run 'mn help VERB' or 'mn VERB --help'.
    """

  /// The environment variables `mn` reads (mn.md §2, §8, §11).
  public static let environment: [EnvironmentVariable] = [
    EnvironmentVariable(
      "MINUTA_STORAGE",
      "The data folder to use when --root is not given; it wins over the pointer file and the "
        + "default places."),
    EnvironmentVariable(
      "MN_BACKUP_DIR",
      "The folder for the backup archives made before merge-conflicts, migrate and restore."),
    EnvironmentVariable(
      "XDG_CONFIG_HOME",
      "Where the pointer file minuta/storage-path.txt is looked for; ~/.config when unset."),
    EnvironmentVariable(
      "XDG_STATE_HOME",
      "Where backups go when MN_BACKUP_DIR is unset: minuta/backups under it; ~/.local/state "
        + "when unset."),
    EnvironmentVariable(
      "HOME", "The home directory, for ~ in the default places of the data folder."),
    EnvironmentVariable(
      "NO_COLOR", "When set to a non-empty value, output is not colored (like --no-color)."),
  ]
}
