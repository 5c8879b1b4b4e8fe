"""Help texts of the commands that extend the command line: `plugin`, `plugin list` and `completion`
(kubectl's layout, kubelite's words)."""
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
    Help("completion", "Print a script that completes kubelite command lines in bash, zsh, fish or PowerShell.\n\n"
         " The script asks kubelite itself what may come next: commands and subcommands, flag values such as "
         "namespaces, contexts and output formats, resource types, and the names of objects on the cluster "
         "the command line points at. Load it in the shell's startup file to have it in every shell.",
         "completion SHELL [options]",
         (("bash: for this shell, then for every new one",
           ("source <(kubelite completion bash)", "echo 'source <(kubelite completion bash)' >> ~/.bashrc")),
          ("zsh", ("source <(kubelite completion zsh)",)),
          ("fish", ("kubelite completion fish | source",)),
          ("PowerShell", ("kubelite completion powershell | Out-String | Invoke-Expression",)))),
]}
