"""Help records of `kubelite rollout` and its subcommands (kubelite's own wording, kubectl's layout)."""
from __future__ import annotations

from kubelite.cli.help import Help

_TARGET = "(TYPE NAME | TYPE/NAME) [flags] [options]"

HELP = {h.command: h for h in (
    Help("rollout", "Follow and steer the rollout of workloads.\n\n"
         " Kinds with rollouts:\n\n  *  deployments\n  *  daemonsets\n  *  statefulsets",
         "rollout SUBCOMMAND [options]",
         (("Go back to the revision before the current one", ("rollout undo deployment/web",)),
          ("Follow a daemon set's rollout", ("rollout status daemonset/agent",)),
          ("Start new pods for a deployment", ("rollout restart deployment/web",)),
          ("Start new pods for two deployments", ("rollout restart deployment/web deployment/api",))),
         subcommands=(("history", "List the revisions of a rollout"), ("pause", "Stop rolling out template changes"),
                      ("restart", "Replace every pod with a new one"), ("resume", "Roll out template changes again"),
                      ("status", "Follow a rollout until it is done"), ("undo", "Return to an earlier revision"))),
    Help("rollout status", "Follow a rollout until it is done.\n\n"
         " Prints the progress each time the object changes and returns once the newest revision is fully rolled "
         "out; --watch=false prints it once. --revision=N gives up when the running revision is not N.",
         f"rollout status {_TARGET}",
         (("Follow a deployment's rollout", ("rollout status deployment/web",)),),
         defaults={"timeout": "0s"},
         docs={"revision": "Only follow this revision (0: whichever is newest).",
               "timeout": "Give up after this long (0: never), e.g. 30s or 2m.",
               "watch": "Keep following until the rollout is done."}),
    Help("rollout history", "List the revisions of a rollout, or show one of them.",
         f"rollout history {_TARGET}",
         (("Every revision of a deployment", ("rollout history deployment/web",)),
          ("The pod template of revision 3", ("rollout history deployment/web --revision=3",))),
         docs={"revision": "Show the pod template of this revision."}),
    Help("rollout undo", "Return to an earlier revision.\n\n"
         " The pod template of the revision (by default the one before the current one) becomes the object's "
         "template again.",
         f"rollout undo {_TARGET}",
         (("Back to the previous revision", ("rollout undo deployment/web",)),
          ("Back to revision 3", ("rollout undo deployment/web --to-revision=3",)),
          ("Show what revision 3 would restore", ("rollout undo deployment/web --to-revision=3 --dry-run=client",))),
         docs={"to-revision": "The revision to return to (0: the one before the current one)."}),
    Help("rollout pause", "Stop rolling out template changes.\n\n"
         " Template changes of a paused deployment are kept but not rolled out until it is resumed; scaling "
         "still happens.",
         "rollout pause RESOURCE [options]",
         (("Pause a deployment", ("rollout pause deployment/web",)),),
         defaults={"field-manager": "'kubectl-rollout'"}),
    Help("rollout resume", "Roll out template changes again.\n\n"
         " Template changes made while the object was paused are rolled out now.",
         "rollout resume RESOURCE [options]",
         (("Resume a deployment", ("rollout resume deployment/web",)),),
         defaults={"field-manager": "'kubectl-rollout'"}),
    Help("rollout restart", "Replace every pod with a new one.\n\n"
         " Stamps the pod template with the current time, so the controller rolls out new pods.",
         "rollout restart RESOURCE [options]",
         (("Restart a deployment", ("rollout restart deployment/web",)),
          ("Restart the deployments labelled app=web", ("rollout restart deployment --selector=app=web",))),
         defaults={"field-manager": "'kubectl-rollout'"}),
)}
