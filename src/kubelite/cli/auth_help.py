"""Help texts of `kubelite auth` and its subcommands (kubectl's layout, kubelite's words)."""
from __future__ import annotations

from kubelite.cli.help import Help

_PRINTING = {"allow-missing-template-keys": "true", "show-managed-fields": "false"}

HELP = {h.command: h for h in [
    Help("auth", "Inspect authorization.", "auth [flags] [options]",
         subcommands=(("can-i", "Check whether an action is allowed"),
                      ("reconcile", "Reconciles rules for RBAC role, role binding, cluster role, and cluster "
                                    "role binding objects"),
                      ("whoami", "Experimental: Check self subject attributes"))),
    Help("auth can-i", "Ask the server whether the current user may do something.\n\n"
         " VERB is a verb such as get, list, create or delete; TYPE a resource type (with an optional "
         "/NAME), and a path starting with / asks about a non-resource URL. The answer is yes or no, "
         "and the exit status is 0 for yes and 1 for no. --list prints everything the user may do in "
         "the namespace.",
         "auth can-i VERB [TYPE | TYPE/NAME | NONRESOURCEURL] [options]",
         (("May I create pods in the current namespace?", ("auth can-i create pods",)),
          ("May I list deployments in every namespace?", ("auth can-i list deployments.apps -A",)),
          ("May I read the logs of pods?", ("auth can-i get pods --subresource=log",)),
          ("May I read the /healthz path?", ("auth can-i get /healthz",)),
          ("May a service account delete secrets?",
           ("auth can-i delete secrets --as=system:serviceaccount:dev:builder",)),
          ("Everything I may do in the namespace dev", ("auth can-i --list --namespace=dev",))),
         defaults={"all-namespaces": "false", "list": "false", "no-headers": "false", "quiet": "false",
                   "subresource": "''"},
         docs={"all-namespaces": "Ask about every namespace rather than the current one.",
               "list": "Print every action the user may do.",
               "no-headers": "With --list, leave out the header line.",
               "quiet": "Print nothing: the exit status is the answer.",
               "subresource": "A subresource, such as log for pods or scale for deployments."}),
    Help("auth reconcile", "Create or fill up RBAC roles, cluster roles and their bindings from files.\n\n"
         " Missing objects are created; existing roles gain the rules and aggregation selectors they lack, "
         "bindings the subjects they lack. A binding whose roleRef differs is deleted and created again. "
         "Other kinds in the files are skipped.",
         "auth reconcile -f FILENAME [options]",
         (("Reconcile the RBAC objects in a file", ("auth reconcile -f my-rbac-rules.yaml",)),
          ("Also drop permissions and subjects the file does not list",
           ("auth reconcile -f rbac.yaml --remove-extra-permissions --remove-extra-subjects",))),
         defaults={**_PRINTING, "dry-run": "none", "recursive": "false", "remove-extra-permissions": "false",
                   "remove-extra-subjects": "false"},
         docs={"remove-extra-permissions": "Remove rules the file does not list.",
               "remove-extra-subjects": "Remove subjects the file does not list."}),
    Help("auth whoami", "Print who the server says the current user is: the name, UID, groups and extra "
         "attributes it authenticated (a SelfSubjectReview).",
         "auth whoami [options]",
         (("Who am I?", ("auth whoami",)),
          ("The whole answer as JSON", ("auth whoami -o json",))),
         defaults=_PRINTING),
]}
