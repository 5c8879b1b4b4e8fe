"""Help texts of `kubelite plugin` and `plugin list` (kubectl's layout, kubelite's words)."""
from __future__ import annotations

from kubelite.cli.help import Help

HELP = {h.command: h for h in [
    Help("plugin", "Work with plugins: executables on PATH that add commands.\n\n"
         " A plugin is a program named kubelite-NAME or kubectl-NAME; `kubelite NAME ARGS...` runs it with "
         "ARGS when kubelite has no command NAME. Dashes in a plugin's name stand for spaces on the command "
         "line (kubelite-foo-bar answers `kubelite foo bar`), underscores for dashes.",
         "plugin [flags] [options]",
         (("Which plugins are on PATH", ("plugin list",)),),
         subcommands=(("list", "List the plugin executables found on PATH"),)),
    Help("plugin list", "List the files on PATH that kubelite would run as plugins.\n\n"
         " Those are files whose names start with kubelite- or kubectl-, in the order of the PATH "
         "directories. Plugins that cannot run, are hidden by an earlier one of the same name, or are "
         "hidden by a command of kubelite's own are reported on stderr.",
         "plugin list [flags] [options]",
         (("Every plugin, with its path", ("plugin list",)),
          ("Only the file names", ("plugin list --name-only",))),
         defaults={"name-only": "false"},
         docs={"name-only": "Print each plugin's file name instead of its full path."}),
]}
