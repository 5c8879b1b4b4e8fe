"""What `-h` says for the object-management, discovery and kubeconfig commands (get ... config).

The wording is kubelite's own; the layout, usage lines, aliases, flag names and defaults follow
kubectl 1.32 (tests/cli/test_help_all.py compares them with the real kubectl at test time).
Flags shared by several commands take their description from help_texts.FLAG_DOCS unless a
record's `docs` says something specific to that command.
"""
from __future__ import annotations

from kubelite.cli.help import Help

# kubectl's descriptions of these commands end with this pointer (kept so `-h` leads the same way)
_RESOURCES_HINT = '\n\nUse "kubelite api-resources" for a complete list of supported resources.'
# kubelite's -o values for the commands that print objects after a write
_PRINT_OUTPUT = "Output format: json, yaml, name, jsonpath, jsonpath-file (go-template output is not supported yet)."

# flag -> description for the flags these commands add to help_texts.FLAG_DOCS
MANAGE_FLAG_DOCS = {
    "all-namespaces": "Work across every namespace; the current namespace and --namespace are ignored.",
    "api-group": "Only list resources of this API group (use '' for the core group).",
    "api-version": "The group/version of the resource to describe, when several exist.",
    "cached": "Answer from the discovery cache when it is fresh (kubelite always asks the server).",
    "categories": "Only list resources in these categories, such as all.",
    "chunk-size": "List large collections in pages of this many items; 0 fetches everything at once.",
    "client": "Print only kubelite's own version, without contacting a server.",
    "concurrency": "How many objects to compare in parallel.",
    "create-annotation": "Add the annotation to objects that do not carry one yet.",
    "current-replicas": "Only resize when the current size is this number; -1 means no such check.",
    "field-selector": "A field selector to pick the objects, such as metadata.name=web (=, == and != are "
                      "supported; the server decides which fields may be used).",
    "flatten": "Embed the files the kubeconfig refers to, so the output stands alone.",
    "force-conflicts": "With server-side apply, take over fields other managers own.",
    "ignore-not-found": "Do not fail when the named objects do not exist.",
    "interactive": "Ask before deleting each object.",
    "label-columns": "Labels to show as extra columns, named one by one or separated by commas.",
    "load-restrictor": "LoadRestrictionsNone lets kustomizations read files outside their own directory; the "
                       "default keeps them inside it.",
    "minify": "Only show what the current context (or --context) uses.",
    "namespaced": "true lists only namespaced resources, false only cluster-wide ones.",
    "no-headers": "Leave out the header line.",
    "now": "Ask the objects to stop at once (the same as --grace-period=1).",
    "openapi-patch": "Use the server's OpenAPI schema to build strategic merge patches when it has one.",
    "output-watch-events": "With --watch, print the event type (ADDED, MODIFIED, DELETED) of each change.",
    "patch": "The patch to apply, written as JSON or YAML.",
    "patch-file": "A file holding the patch to apply.",
    "prune": "Delete objects that were applied before but are no longer in the given configuration.",
    "prune-allowlist": "A group/version/kind that --prune may delete (repeat for more); the default covers "
                       "the common kinds.",
    "server-side": "Let the server merge the changes (server-side apply) instead of computing a patch here.",
    "show-events": "Add the events about each object at the end of its description.",
    "show-kind": "Put the object's kind in front of its name.",
    "show-labels": "Add a column with all the labels of each object.",
    "sort-by": "Sort the listed objects by the value at this JSONPath expression, such as {.metadata.name}.",
    "verbs": "Only list resources that support all of these verbs.",
    "watch": "Keep running after listing, and print each change to the objects.",
    "watch-only": "Print changes to the objects without listing them first.",
    "current": "Change the current context instead of a named one.",
}

_FILES_FLAG = "Files, directories or URLs with the objects {}."
_MANAGER = "The name recorded as the owner of the fields this command sets."


def _docs(**kw) -> dict:
    return {k.replace("_", "-"): v for k, v in kw.items()}


RECORDS = [
    Help("get", "List objects, or show chosen ones.\n\n"
         " Without -o, objects are printed as a table of their most telling columns, as the server lays it out. "
         "With a label selector (-l) only matching objects are listed. Namespaced types are listed from the "
         "current namespace unless --namespace or --all-namespaces says otherwise." + _RESOURCES_HINT,
         "get [(-o|--output=)json|yaml|name|go-template|go-template-file|template|templatefile|jsonpath|"
         "jsonpath-as-json|jsonpath-file|custom-columns|custom-columns-file|wide] (TYPE[.VERSION][.GROUP] "
         "[NAME | -l label] | TYPE[.VERSION][.GROUP]/NAME ...) [flags] [options]",
         (("Every pod in the current namespace", ("get pods",)),
          ("More columns, and the pods of every namespace", ("get pods -o wide --all-namespaces",)),
          ("One deployment as YAML", ("get deployment web -o yaml",)),
          ("Several types at once, and objects named type/name", ("get deployments,services", "get svc/web cm/settings")),
          ("The objects described in a file", ("get -f app.yaml -o name",)),
          ("Pods with a label, with that label as a column", ("get pods -l tier=front -L tier",)),
          ("Pick values with JSONPath", ("get pods -o jsonpath='{.items[*].metadata.name}'",)),
          ("Choose the columns yourself", ("get pods -o custom-columns=NAME:.metadata.name,NODE:.spec.nodeName",)),
          ("Follow changes after listing", ("get pods --watch",))),
         docs=_docs(filename=_FILES_FLAG.format("to list"), output="Output format: json, yaml, name, wide, "
                    "jsonpath, jsonpath-file, custom-columns, custom-columns-file.",
                    selector="A label selector to pick the objects, such as key1=value1,key2!=value2 or 'env in (a,b)'.",
                    raw="A server path to GET; the response body is printed as it comes, using the kubeconfig's "
                        "transport.",
                    subresource="Show this subresource (status or scale) of the named objects instead.",
                    server_print="Ask the server for its table of columns; false prints only NAME and AGE, "
                                 "computed here from the objects.")),
    Help("describe", "Print a readable account of objects: their settings, status and recent events.\n\n"
         " Name an object, a type (every object of it), a name prefix (every object whose name starts with it, "
         "when no object has exactly that name), or a label selector." + _RESOURCES_HINT,
         "describe (-f FILENAME | TYPE [NAME_PREFIX | -l label] | TYPE/NAME) [options]",
         (("One node", ("describe node worker-1",)),
          ("A pod, named either way", ("describe pod web-0", "describe pods/web-0")),
          ("The objects a file describes", ("describe -f pod.yaml",)),
          ("Every pod whose name starts with web", ("describe pods web",)),
          ("Every pod with a label", ("describe pods -l app=web",))),
         docs=_docs(filename=_FILES_FLAG.format("to describe"))),
    Help("replace", "Replace objects with the versions in the given files.\n\n"
         " Each object is sent whole, so fields left out of the file are cleared. YAML and JSON are read. "
         "With --force the objects are deleted and created again instead.",
         "replace -f FILENAME [options]",
         (("Replace the object in a file", ("replace -f ./web.yaml",)),
          ("Replace from standard input", ("get pod web -o yaml | sed 's/v1.0/v1.1/' | kubelite replace -f -",)),
          ("Delete and create again", ("replace --force -f ./web.yaml",))),
         defaults={"field-manager": "'kubectl-replace'", "wait": "false", "timeout": "0s"},
         docs=_docs(filename=_FILES_FLAG.format("to replace"), output=_PRINT_OUTPUT,
                    raw="A server path to PUT the file to, using the kubeconfig's transport.",
                    subresource="Replace this subresource (status or scale) of each object instead of the object.",
                    force="Delete the objects and create them again, instead of replacing them in place.",
                    cascade="With --force, what happens to dependents of the deleted objects: background, "
                            "orphan or foreground.",
                    grace_period="With --force, seconds the objects get to stop; negative uses their own setting.",
                    wait="With --force, wait until the objects are gone before creating them again.",
                    timeout="With --force, how long to wait for the deletion (such as 30s); 0 picks a default.")),
    Help("delete", "Delete objects named on the command line, described in files, or matched by a selector.\n\n"
         " Give either files (-f, -k), or a type with names, a selector (-l) or --all. Objects that stop "
         "gracefully, such as pods, get their grace period unless --grace-period, --now or --force says "
         "otherwise; with --force they are removed from the API at once, even if still running.\n\n"
         " By default the command waits until the objects are gone (--wait=false returns at once).",
         "delete ([-f FILENAME] | [-k DIRECTORY] | TYPE [(NAME | -l label | --all)]) [options]",
         (("The objects in a file", ("delete -f ./app.yaml",)),
          ("The objects of a kustomization", ("delete -k ./overlays/dev",)),
          ("Objects by type and name", ("delete pod web-0", "delete deployment/web service/web")),
          ("Every pod with a label", ("delete pods -l app=web",)),
          ("Every pod in the namespace, without waiting", ("delete pods --all --wait=false",)),
          ("Remove a stuck pod from the API at once", ("delete pod web-0 --grace-period=0 --force",))),
         defaults={"timeout": "0s"},
         docs=_docs(filename=_FILES_FLAG.format("to delete"),
                    all="Delete every object of the given types in the namespace.",
                    cascade="What happens to the objects' dependents: background (the default), orphan or "
                            "foreground (wait for them).",
                    force="Remove the objects from the API at once, without waiting for them to stop "
                          "(needs --grace-period=0).",
                    grace_period="Seconds the objects get to stop; negative uses their own setting, 0 needs --force.",
                    output="Output format: name prints only type/name of each deleted object.",
                    raw="A server path to send the DELETE to, using the kubeconfig's transport.",
                    wait="Wait until the objects are gone before returning.",
                    timeout="How long to wait for the deletion (such as 30s); 0 picks a default from the "
                            "number of objects.")),
    Help("edit", "Open objects in an editor and save the changes back to the server.\n\n"
         " The editor is taken from KUBE_EDITOR or EDITOR (vi otherwise). Several objects open in one file "
         "and are saved one by one. If saving fails the file opens again with the error at the top; if it "
         "still cannot be saved, it is kept in a temporary file so no change is lost.\n\n"
         " The changes are sent as a patch, so fields another client changed meanwhile are kept.",
         "edit (RESOURCE/NAME | -f FILENAME) [options]",
         (("Edit a service", ("edit svc/web",)),
          ("Edit as JSON, with a chosen editor", ("KUBE_EDITOR=\"nano\" kubelite edit deployment/web -o json",)),
          ("Edit a deployment and keep the result for a later apply",
           ("edit deployment/web --save-config",)),
          ("Edit a pod's status", ("edit pod web-0 --subresource=status",))),
         defaults={"output": "''"}, hidden=("selector",),
         docs=_docs(filename=_FILES_FLAG.format("to edit"), output="The format to edit in: yaml (the default) "
                    "or json.", subresource="Edit this subresource (such as status) instead of the object.",
                    output_patch="Print each patch sent to the server, as JSON.",
                    field_manager=_MANAGER, windows_line_endings="Give the edited file CRLF line endings.")),
    Help("patch", "Change fields of an object with a strategic merge patch, a JSON merge patch or a JSON patch.\n\n"
         " Strategic merge patches use the merge keys of the built-in types: list items are merged by name, "
         "port and the like instead of replacing the list. Custom resources accept JSON merge and JSON patches.",
         "patch (-f FILENAME | TYPE NAME) [-p PATCH|--patch-file FILE] [options]",
         (("Set a node's field with a strategic merge patch", ("patch node worker-1 -p '{\"spec\":{\"unschedulable\":true}}'",)),
          ("Patch the object a file names", ("patch -f node.json -p '{\"spec\":{\"unschedulable\":true}}'",)),
          ("Change one container's image (containers merge by name)",
           ("patch pod web-0 -p '{\"spec\":{\"containers\":[{\"name\":\"web\",\"image\":\"nginx:1.27\"}]}}'",)),
          ("The same with a JSON patch",
           ("patch pod web-0 --type='json' -p='[{\"op\":\"replace\",\"path\":\"/spec/containers/0/image\","
            "\"value\":\"nginx:1.27\"}]'",)),
          ("Patch the scale subresource", ("patch deployment web --subresource='scale' --type='merge' "
                                           "-p '{\"spec\":{\"replicas\":3}}'",))),
         docs=_docs(filename=_FILES_FLAG.format("to patch"), output=_PRINT_OUTPUT, field_manager=_MANAGER,
                    local="Patch the objects of -f here and print them, without contacting the server.",
                    subresource="Patch this subresource (status or scale) instead of the object.",
                    type="The kind of patch: json, merge or strategic.")),
    Help("scale", "Change the number of replicas of a deployment, replica set, replication controller or "
         "stateful set.\n\n"
         " --current-replicas and --resource-version are preconditions: when given, the size only changes "
         "if the object still matches them.",
         "scale [--resource-version=version] [--current-replicas=count] --replicas=COUNT (-f FILENAME | TYPE NAME) "
         "[options]",
         (("Run five replicas of a replica set", ("scale --replicas=5 rs/web",)),
          ("Scale the deployment a file describes", ("scale --replicas=2 -f web.yaml",)),
          ("Only if it runs two replicas now", ("scale --current-replicas=2 --replicas=4 deployment/web",)),
          ("Several objects at once", ("scale --replicas=1 deployment/web deployment/api",))),
         defaults={"replicas": "0", "timeout": "0s"},
         docs=_docs(filename=_FILES_FLAG.format("to resize"), output=_PRINT_OUTPUT,
                    all="Resize every object of the given types in the namespace.",
                    replicas="The new number of replicas (required).",
                    resource_version="Only resize if the object is still at this resource version.",
                    timeout="How long to wait for the resize to finish (0 does not wait).")),
    Help("label", "Add, change or remove labels of objects.\n\n"
         " Label keys and values must be valid label names (63 characters at most, letters, digits, '-', '_' "
         "and '.'). An existing label is only changed with --overwrite; KEY- removes a label.",
         "label [--overwrite] (-f FILENAME | TYPE NAME) KEY_1=VAL_1 ... KEY_N=VAL_N [--resource-version=version] "
         "[options]",
         (("Add a label", ("label pods web-0 tier=front",)),
          ("Change a label that is already set", ("label --overwrite pods web-0 tier=back",)),
          ("Label every pod in the namespace", ("label pods --all owner=team-a",)),
          ("Label the object a file names", ("label -f pod.json owner=team-a",)),
          ("Only if the object is unchanged", ("label pods web-0 owner=team-a --resource-version=42",)),
          ("Remove a label", ("label pods web-0 tier-",))),
         docs=_docs(filename=_FILES_FLAG.format("to label"), output=_PRINT_OUTPUT, field_manager=_MANAGER,
                    all="Label every object of the given types in the namespace.",
                    list="Print the labels of the objects instead of changing them.",
                    local="Label the objects of -f here and print them, without contacting the server.",
                    overwrite="Allow changing labels that already have a value.")),
    Help("annotate", "Add, change or remove annotations of objects.\n\n"
         " Annotations hold free-form text, larger than labels allow, such as notes or settings read by "
         "tools. An existing annotation is only changed with --overwrite; KEY- removes one. With "
         "--resource-version the change fails if the object was modified meanwhile." + _RESOURCES_HINT,
         "annotate [--overwrite] (-f FILENAME | TYPE NAME) KEY_1=VAL_1 ... KEY_N=VAL_N [--resource-version=version] "
         "[options]",
         (("Add an annotation", ("annotate pods web-0 description='front end'",)),
          ("Change an annotation that is already set", ("annotate --overwrite pods web-0 description='nginx front end'",)),
          ("Annotate every pod in the namespace", ("annotate pods --all owner=team-a",)),
          ("Annotate the object a file names", ("annotate -f pod.json owner=team-a",)),
          ("Only if the object is unchanged", ("annotate pods web-0 owner=team-a --resource-version=42",)),
          ("Remove an annotation", ("annotate pods web-0 description-",))),
         docs=_docs(filename=_FILES_FLAG.format("to annotate"), output=_PRINT_OUTPUT, field_manager=_MANAGER,
                    all="Annotate every object of the given types in the namespace.",
                    list="Print the annotations of the objects instead of changing them.",
                    local="Annotate the objects of -f here and print them, without contacting the server.",
                    overwrite="Allow changing annotations that already have a value.")),
    Help("apply", "Make objects match the configuration in files, creating those that do not exist.\n\n"
         " apply remembers what it applied in the last-applied-configuration annotation, and computes each "
         "change from it: fields removed from the file are removed from the object, fields set by others "
         "are kept. Create objects with apply (or create --save-config) to manage them this way. YAML and "
         "JSON are read.\n\n"
         " --prune (alpha) also deletes objects applied earlier that the files no longer contain.",
         "apply (-f FILENAME | -k DIRECTORY) [options]",
         (("Apply a file", ("apply -f ./web.yaml",)),
          ("Apply a kustomization", ("apply -k ./overlays/prod",)),
          ("Apply standard input", ("cat web.json | kubelite apply -f -",)),
          ("Apply a directory, deleting labelled objects that are no longer in it",
           ("apply --prune -f ./manifests -l app=web",)),
          ("Apply and prune only config maps", ("apply --prune -f ./manifests --all --prune-allowlist=core/v1/ConfigMap",))),
         subcommands=(("edit-last-applied", "Edit the last-applied-configuration annotation in an editor"),
                      ("set-last-applied", "Set the last-applied-configuration annotation from a file"),
                      ("view-last-applied", "Print the last-applied-configuration annotation")),
         defaults={"field-manager": "'kubectl-client-side-apply'", "timeout": "0s", "overwrite": "true"},
         hidden=("applyset",),
         docs=_docs(filename=_FILES_FLAG.format("to apply"), output=_PRINT_OUTPUT,
                    all="With --prune, consider every object of the allowlisted types, not only those matching -l.",
                    cascade="What happens to dependents of pruned or force-replaced objects: background, "
                            "orphan or foreground.",
                    field_manager=_MANAGER,
                    force="Delete and create again objects whose change the server refuses.",
                    grace_period="Seconds pruned or force-replaced objects get to stop; negative uses their own.",
                    overwrite="Overwrite fields changed by others since the last apply.",
                    selector="A label selector; with --prune, only matching objects are considered.",
                    subresource="With --server-side, apply to this subresource (such as status) of each object.",
                    timeout="How long to wait for deletions with --force or --wait (0 picks a default).",
                    wait="Wait for pruned objects to be gone before returning.")),
    Help("apply view-last-applied", "Print the last-applied-configuration annotation of objects.\n\n"
         " It is printed as YAML unless -o json is given.",
         "apply view-last-applied (TYPE [NAME | -l label] | TYPE/NAME | -f FILENAME) [options]",
         (("As YAML", ("apply view-last-applied deployment/web",)),
          ("As JSON, for the object a file names", ("apply view-last-applied -f web.yaml -o json",))),
         defaults={"output": "'yaml'"}, hidden=("create-annotation", "dry-run", "windows-line-endings"),
         docs=_docs(filename=_FILES_FLAG.format("whose annotation to print"), output="yaml or json.",
                    all="Every object of the given type in the namespace.")),
    Help("apply set-last-applied", "Set the last-applied-configuration annotation to the contents of a file.\n\n"
         " The object itself is not changed; a later apply compares against the new annotation as if the file "
         "had been applied.",
         "apply set-last-applied -f FILENAME [options]",
         (("Record the file as last applied", ("apply set-last-applied -f web.yaml",)),
          ("Also for objects without the annotation", ("apply set-last-applied -f web.yaml --create-annotation=true",))),
         hidden=("all", "kustomize", "recursive", "selector", "windows-line-endings"),
         docs=_docs(filename="Files whose objects to record as last applied.", output=_PRINT_OUTPUT)),
    Help("apply edit-last-applied", "Edit the last-applied-configuration annotation of objects in an editor.\n\n"
         " The editor is taken from KUBE_EDITOR or EDITOR (vi otherwise). Only the annotation changes; the "
         "object itself stays as it is until the next apply. If saving fails the file opens again with the "
         "error at the top.",
         "apply edit-last-applied (RESOURCE/NAME | -f FILENAME) [options]",
         (("Edit as YAML", ("apply edit-last-applied deployment/web",)),
          ("Edit as JSON", ("apply edit-last-applied deployment/web -o json",))),
         hidden=("all", "selector", "create-annotation", "dry-run"),
         defaults={"field-manager": "'kubectl-client-side-apply'"},
         docs=_docs(filename=_FILES_FLAG.format("whose annotation to edit"), field_manager=_MANAGER,
                    output="The format to edit in: yaml (the default) or json.",
                    windows_line_endings="Give the edited file CRLF line endings.")),
    Help("diff", "Show how objects on the server would change if the given files were applied.\n\n"
         " Both versions are written as YAML to two directories and compared with `diff -u -N`, or with the "
         "command in KUBECTL_EXTERNAL_DIFF (which may carry its own arguments).\n\n"
         " Exit status: 0 when nothing would change, 1 when something would, above 1 when the diff failed.",
         "diff -f FILENAME [options]",
         (("Compare a file with the server", ("diff -f web.yaml",)),
          ("Compare standard input", ("cat web.yaml | kubelite diff -f -",)),
          ("Compare a kustomization", ("diff -k ./overlays/prod",))),
         defaults={"field-manager": "'kubectl-client-side-apply'"},
         docs=_docs(filename=_FILES_FLAG.format("to compare"), field_manager=_MANAGER,
                    selector="Only compare objects matching this label selector.",
                    show_managed_fields="Keep metadata.managedFields in the compared versions.",
                    prune="Also show objects that apply --prune would delete.",
                    show_secret="Show secret values instead of masking them.")),
    Help("kustomize", "Build the objects a kustomization describes and print them as YAML.\n\n"
         " DIR is a directory holding kustomization.yaml (the current directory when left out). "
         "Helm charts are not inflated yet (--enable-helm runs the helm command's version check, as kubectl "
         "does, then stops); exec and container plugins are not run.",
         "kustomize DIR [flags] [options]",
         (("Build the current directory", ("kustomize",)),
          ("Build an overlay", ("kustomize ./overlays/prod",)),
          ("Allow files outside the kustomization's directory", ("kustomize --load-restrictor LoadRestrictionsNone ./app",)),
          ("Write one file per object into an existing directory", ("kustomize ./app -o ./out/",))),
         hidden=("reorder",),
         docs={"output": "Write the objects to this file instead of standard output; into an existing directory, "
                         "one file each.",
               "enable-helm": "Allow helmCharts and HelmChartInflationGenerator plugins (helm's version is "
                              "checked; inflating charts is not done yet).",
               "helm-command": "The helm program to run (a name looked up in PATH, or a path).",
               "helm-api-versions": "API versions helm templates see as Capabilities.APIVersions.",
               "helm-kube-version": "Kubernetes version helm templates see as Capabilities.KubeVersion.",
               "helm-debug": "Pass --debug to helm.",
               "env": "Environment variables for KRM function containers (accepted, not used).",
               "mount": "Storage mounts for KRM function containers (accepted, not used).",
               "network": "Network access for KRM functions (accepted, not used).",
               "network-name": "Docker network for KRM function containers (accepted, not used).",
               "as-current-user": "Run KRM function containers as the current user (accepted, not used).",
               "enable-alpha-plugins": "Allow alpha plugins (accepted; exec and container plugins are not run)."}),
    Help("explain", "Describe the fields of a type, as the server's OpenAPI documents define them.\n\n"
         " Name a type, or a field path inside it:\n\n"
         "        <type>.<fieldName>[.<fieldName>]\n"
         "        \n"
         " --recursive prints the whole tree of field names instead of one level with descriptions."
         + _RESOURCES_HINT,
         "explain TYPE [--recursive=FALSE|TRUE] [--api-version=api-version-group] [-o|--output=plaintext|"
         "plaintext-openapiv2] [options]",
         (("A type", ("explain pods",)),
          ("A field", ("explain deployment.spec.strategy",)),
          ("Every field below a path", ("explain pods.spec --recursive",)),
          ("A given version of a type", ("explain cronjobs --api-version=batch/v1",))),
         docs=_docs(output="Output format: plaintext.",
                    recursive="Print the names of all fields below, without descriptions.")),
    Help("version", "Print kubelite's version and, unless --client is given, the server's.",
         "version [flags] [options]",
         (("Both versions", ("version",)),
          ("Only kubelite's, as JSON", ("version --client -o json",))),
         docs=_docs(output="Print the versions as yaml or json.")),
    Help("cluster-info", "Print the address of the API server and of services labelled "
         "kubernetes.io/cluster-service=true.",
         "cluster-info [flags] [options]",
         (("Where the cluster's services are", ("cluster-info",)),),
         subcommands=(("dump", "Write out the cluster's state for debugging"),)),
    Help("cluster-info dump", "Write out the cluster's state, to look into problems: the nodes, and for each "
         "namespace its events, replication controllers, services, daemon sets, deployments, replica sets and "
         "pods, then the logs of every container.\n\n"
         " Everything goes to standard output unless --output-directory names a directory, which then receives "
         "one file per list and NAMESPACE/POD/logs.txt for the logs. The namespaces are kube-system and the "
         "current one unless --namespaces or --all-namespaces says otherwise.",
         "cluster-info dump [flags] [options]",
         (("Everything to standard output", ("cluster-info dump",)),
          ("Into a directory", ("cluster-info dump --output-directory=./state",)),
          ("Every namespace", ("cluster-info dump --all-namespaces",)),
          ("Two namespaces, into a directory", ("cluster-info dump --namespaces default,ci --output-directory=./state",))),
         defaults={"output": "'json'", "allow-missing-template-keys": "true", "show-managed-fields": "false",
                   "pod-running-timeout": "20s"},
         docs=_docs(all_namespaces="Dump every namespace (--namespaces is then ignored).",
                    namespaces="The namespaces to dump, separated by commas.",
                    output_directory="The directory to write the files to; empty or - writes to standard output.",
                    pod_running_timeout="How long to wait for a pod to run before reading its logs (such as 5s).",
                    output="Output format of the lists: json (the default), yaml, go-template, jsonpath and their "
                           "variants; files get .json, .yaml or .txt.")),
    Help("api-resources", "List the resource types the server offers.",
         "api-resources [flags] [options]",
         (("Every resource type", ("api-resources",)),
          ("With verbs and more", ("api-resources -o wide",)),
          ("Sorted by name", ("api-resources --sort-by=name",)),
          ("Only namespaced types", ("api-resources --namespaced=true",)),
          ("Only cluster-wide types", ("api-resources --namespaced=false",)),
          ("Only the apps group", ("api-resources --api-group=apps",))),
         defaults={"namespaced": "true"},
         docs=_docs(output="Output format: wide or name.",
                    sort_by="Sort by a column: name or kind.")),
    Help("api-versions", "List the API versions the server offers, as group/version.",
         "api-versions [options]",
         (("Every API version", ("api-versions",)),)),
]

CONFIG_SUBCOMMANDS = (
    ("current-context", "Print the current context"),
    ("delete-cluster", "Remove a cluster from the kubeconfig"),
    ("delete-context", "Remove a context from the kubeconfig"),
    ("delete-user", "Remove a user from the kubeconfig"),
    ("get-clusters", "List the clusters"),
    ("get-contexts", "List the contexts"),
    ("get-users", "List the users"),
    ("rename-context", "Give a context another name"),
    ("set", "Set one value, named by its dotted path"),
    ("set-cluster", "Add or change a cluster"),
    ("set-context", "Add or change a context"),
    ("set-credentials", "Add or change a user"),
    ("unset", "Remove one value, named by its dotted path"),
    ("use-context", "Choose the current context"),
    ("view", "Print the merged kubeconfig, or one file"),
)

_PROPERTY = (" PROPERTY_NAME is a path of names joined by dots: fields (such as server or namespace) and the names "
             "of clusters, contexts and users (which therefore cannot hold a dot followed by a field name).")
_DELETED = " The change is written to the file that defines it; a removed context that was current stays named as current."

CONFIG_RECORDS = [
    Help("config", "Read and change kubeconfig files through the subcommands, such as "
         "\"kubelite config use-context NAME\".\n\n"
         " Which files are read:\n\n"
         "  1.  With --kubeconfig, that one file alone.\n"
         "  2.  Otherwise, with $KUBECONFIG set, every file it lists (merged; the first to define a value wins, "
         "and a change is written to the file that defined it, or to the first existing file).\n"
         "  3.  Otherwise ${HOME}/.kube/config.\n\n"
         " With none of these, kubelite uses its embedded cluster.",
         "config SUBCOMMAND [options]", subcommands=CONFIG_SUBCOMMANDS),
    Help("config view", "Print the merged kubeconfig, or the file given with --kubeconfig.\n\n"
         " Certificates, keys and tokens are shown as placeholders unless --raw is given. -o "
         "jsonpath={...} extracts single values.",
         "config view [flags] [options]",
         (("The merged kubeconfig", ("config view",)),
          ("Only what the current context uses, secrets included", ("config view --minify --raw",)),
          ("One value", ("config view -o jsonpath='{.users[?(@.name == \"admin\")].user.token}'",))),
         defaults={"merge": "true"},
         docs=_docs(output="Output format: yaml, json, jsonpath.",
                    raw="Show certificates, keys and tokens as they are.",
                    merge="Combine every kubeconfig file; false (with --kubeconfig only) prints that file alone.")),
    Help("config get-contexts", "List the contexts of the kubeconfig, or the named ones.",
         "config get-contexts [(-o|--output=)name)] [options]",
         (("Every context", ("config get-contexts",)),
          ("One context", ("config get-contexts prod",))),
         docs=_docs(output="Output format: name prints only the names.")),
    Help("config current-context", "Print the name of the current context.",
         "config current-context [flags] [options]",
         (("The current context", ("config current-context",)),)),
    Help("config use-context", "Make a context the current one.",
         "config use-context CONTEXT_NAME [options]",
         (("Switch to the staging context", ("config use-context staging",)),),
         aliases=("use-context", "use")),
    Help("config set", "Change one value in a kubeconfig file.\n\n" + _PROPERTY + "\n\n"
         " PROPERTY_VALUE is the new value; for binary fields such as certificate-authority-data it is read as "
         "base64 text unless --set-raw-bytes is given. A cluster, context or user that does not exist yet is added.",
         "config set PROPERTY_NAME PROPERTY_VALUE [options]",
         (("Point the cluster prod at a new address", ("config set clusters.prod.server https://10.0.0.1:6443",)),
          ("Store a CA certificate in the cluster prod", ("config set clusters.prod.certificate-authority-data "
                                                          "$(cat ca.crt.b64)",)),
          ("Make the context ops use the cluster prod", ("config set contexts.ops.cluster prod",)),
          ("Store a key as it is, without base64", ("config set users.admin.client-key-data \"$KEY\" "
                                                    "--set-raw-bytes=true",))),
         defaults={"set-raw-bytes": "false"},
         docs=_docs(set_raw_bytes="Store PROPERTY_VALUE as it is in a binary field instead of decoding base64.")),
    Help("config unset", "Remove one value from a kubeconfig file.\n\n" + _PROPERTY,
         "config unset PROPERTY_NAME [options]",
         (("Forget the current context", ("config unset current-context",)),
          ("Stop the context ops from choosing a namespace", ("config unset contexts.ops.namespace",)))),
    Help("config set-cluster", "Add a cluster to the kubeconfig, or change one.\n\n"
         " Only the fields given change; the others keep their values.",
         "config set-cluster NAME [--server=server] [--certificate-authority=path/to/certificate/authority] "
         "[--insecure-skip-tls-verify=true] [--tls-server-name=example.com] [options]",
         (("Change only the address of the cluster prod", ("config set-cluster prod --server=https://10.0.0.1:6443",)),
          ("Store the CA certificate in the kubeconfig itself", ("config set-cluster prod --embed-certs "
                                                                 "--certificate-authority=./ca.crt",)),
          ("Skip the certificate check (insecure)", ("config set-cluster lab --insecure-skip-tls-verify=true",)),
          ("Check the certificate against another host name", ("config set-cluster prod --tls-server-name=api.internal",)),
          ("Reach the cluster through a proxy", ("config set-cluster prod --proxy-url=http://proxy:3128",))),
         defaults={"embed-certs": "false", "insecure-skip-tls-verify": "false"},
         docs=_docs(server="The address of the cluster's API server.",
                    tls_server_name="The host name the server's certificate must be valid for.",
                    insecure_skip_tls_verify="Do not check the server's certificate.",
                    certificate_authority="A file with the CA certificate(s) the server's certificate must chain to.",
                    embed_certs="Copy the file given with --certificate-authority into the kubeconfig.",
                    proxy_url="The proxy to reach the cluster through.")),
    Help("config set-credentials", "Add a user to the kubeconfig, or change one.\n\n"
         " Only the fields given change; the others keep their values. A user authenticates with a bearer "
         "token, with a user name and password, with a client certificate, through an auth provider, or "
         "with an exec plugin that prints credentials.\n\n"
         " --auth-provider-arg and --exec-env take key=value to set a value and key- to remove one.",
         "config set-credentials NAME [--client-certificate=path/to/certfile] [--client-key=path/to/keyfile] "
         "[--token=bearer_token] [--username=basic_user] [--password=basic_password] [--auth-provider=provider_name] "
         "[--auth-provider-arg=key=value] [--exec-command=exec_command] [--exec-api-version=exec_api_version] "
         "[--exec-arg=arg] [--exec-env=key=value] [options]",
         (("A user with a bearer token", ("config set-credentials ci --token=$TOKEN",)),
          ("A user with a client certificate stored in the kubeconfig",
           ("config set-credentials admin --client-certificate=./admin.crt --client-key=./admin.key --embed-certs=true",)),
          ("A user whose credentials come from a program",
           ("config set-credentials sso --exec-command=/usr/local/bin/get-token "
            "--exec-api-version=client.authentication.k8s.io/v1 --exec-interactive-mode=Never",)),
          ("Arguments and environment for that program",
           ("config set-credentials sso --exec-arg=--profile --exec-arg=prod --exec-env=REGION=eu",)),
          ("Remove a variable from that program's environment", ("config set-credentials sso --exec-env=REGION-",)),
          ("An auth provider with settings", ("config set-credentials web --auth-provider=oidc "
                                              "--auth-provider-arg=client-id=kubelite",))),
         defaults={"embed-certs": "false", "exec-provide-cluster-info": "false"},
         docs=_docs(client_certificate="A file with the client certificate to present.",
                    client_key="A file with the client certificate's private key.",
                    token="A bearer token to authenticate with.",
                    username="A user name for basic authentication.",
                    password="A password for basic authentication.",
                    auth_provider="The name of an auth provider plugin.",
                    auth_provider_arg="Settings for the auth provider, as key=value (key- removes one).",
                    embed_certs="Copy the certificate and key files into the kubeconfig.",
                    exec_api_version="The client.authentication.k8s.io version the exec plugin speaks.",
                    exec_arg="Arguments for the exec plugin; they replace the ones it had.",
                    exec_command="The program that prints credentials (an exec plugin).",
                    exec_env="An environment variable for the exec plugin, as key=value (key- removes one).",
                    exec_interactive_mode="Whether the exec plugin reads standard input: Never, IfAvailable or Always.",
                    exec_provide_cluster_info="Tell the exec plugin about the cluster in KUBERNETES_EXEC_INFO.")),
    Help("config delete-cluster", "Remove a cluster from the kubeconfig." + _DELETED.split(";")[0] + ".",
         "config delete-cluster NAME [options]",
         (("Remove the cluster lab", ("config delete-cluster lab",)),)),
    Help("config delete-context", "Remove a context from the kubeconfig." + _DELETED,
         "config delete-context NAME [options]",
         (("Remove the context lab", ("config delete-context lab",)),)),
    Help("config delete-user", "Remove a user from the kubeconfig." + _DELETED.split(";")[0] + ".",
         "config delete-user NAME [options]",
         (("Remove the user lab-admin", ("config delete-user lab-admin",)),)),
    Help("config get-clusters", "List the names of the clusters in the kubeconfig.",
         "config get-clusters [flags] [options]",
         (("Every cluster name", ("config get-clusters",)),)),
    Help("config get-users", "List the names of the users in the kubeconfig.",
         "config get-users [flags] [options]",
         (("Every user name", ("config get-users",)),)),
    Help("config rename-context", "Give a context a new name.\n\n"
         " When the context is the current one, current-context follows the new name.",
         "config rename-context CONTEXT_NAME NEW_NAME [options]",
         (("Call the context dev development from now on", ("config rename-context dev development",)),)),
    Help("config set-context", "Add a context to the kubeconfig, or change one.\n\n"
         " Only the fields given change; the others keep their values.",
         "config set-context [NAME | --current] [--cluster=cluster_nickname] [--user=user_nickname] "
         "[--namespace=namespace] [options]",
         (("Make the current context default to the dev namespace", ("config set-context --current --namespace=dev",)),
          ("A context joining a cluster and a user", ("config set-context ops --cluster=main --user=admin",))),
         plain=("namespace",),
         docs=_docs(cluster="The cluster the context points to.", user="The user the context authenticates as.",
                    namespace="The namespace the context defaults to.")),
]

# `kubelite -h`: kubectl's command groups, holding the commands kubelite has, and a group for serve
TOP_DESCRIPTION = "kubelite manages Kubernetes objects as kubectl does, and can serve the Kubernetes API itself.\n\n" \
                  " kubectl's documentation applies: https://kubernetes.io/docs/reference/kubectl/"
TOP_GROUPS = (
    ("Basic Commands (Beginner)", (
        ("create", "Create objects from files or from standard input"),
        ("expose", "Put a new service in front of a deployment, replica set, replication controller, pod or service"),
        ("run", "Start a pod running an image"),
        ("set", "Change particular fields of objects"))),
    ("Basic Commands (Intermediate)", (
        ("explain", "Describe the fields of a type"),
        ("get", "List objects, or show chosen ones"),
        ("edit", "Change objects on the server in an editor"),
        ("delete", "Delete objects by file, by name, or by type and label selector"))),
    ("Deploy Commands", (
        ("rollout", "Follow and steer the rollout of workloads"),
        ("scale", "Change the number of replicas of a deployment, replica set or replication controller"),
        ("autoscale", "Scale a deployment, replica set, stateful set or replication controller automatically"))),
    ("Cluster Management Commands", (
        ("certificate", "Approve or deny certificate signing requests"),
        ("cluster-info", "Print the addresses of the cluster's services"),
        ("top", "Show how much CPU and memory nodes or pods use"),
        ("cordon", "Mark nodes as unschedulable"),
        ("uncordon", "Mark nodes as schedulable again"),
        ("drain", "Empty nodes before maintenance"),
        ("taint", "Add, change or remove taints of nodes"))),
    ("Troubleshooting and Debugging Commands", (
        ("describe", "Print a readable account of objects and their events"),
        ("logs", "Print the logs of a container of a pod"),
        ("attach", "Connect to the process running in a container"),
        ("exec", "Run a command in a container"),
        ("port-forward", "Forward local ports to a pod"),
        ("cp", "Copy files and directories between this machine and containers"),
        ("auth", "Inspect authorization"),
        ("debug", "Create debugging sessions for workloads and nodes"),
        ("events", "List events, oldest first"))),
    ("Advanced Commands", (
        ("diff", "Show what applying files would change on the server"),
        ("apply", "Make objects match the configuration in files"),
        ("patch", "Change fields of an object"),
        ("replace", "Replace objects with the versions in files"),
        ("wait", "Wait until objects meet a condition"),
        ("kustomize", "Build the objects a kustomization describes"))),
    ("Settings Commands", (
        ("label", "Change the labels of objects"),
        ("annotate", "Change the annotations of objects"),
        ("completion", "Print a shell script that completes kubelite command lines"))),
    ("Other Commands", (
        ("api-resources", "List the resource types the server offers"),
        ("api-versions", "List the API versions the server offers, as group/version"),
        ("config", "Read and change kubeconfig files"),
        ("plugin", "List and run plugins: executables on PATH that add commands"),
        ("version", "Print kubelite's version and the server's"))),
    ("API Server Commands (kubelite)", (
        ("serve", "Run the built-in Kubernetes API server"),)),
)

SERVE = Help("serve", "Run kubelite's built-in Kubernetes API server over HTTPS, in the foreground.\n\n"
             " Objects are stored in a SQLite database in the data directory (or where --storage says), next to the certificate "
             "authority, the server certificate and the bearer token it creates on first start. kubectl "
             "and kubelite can talk to it through the kubeconfig --write-kubeconfig writes.",
             "serve [--port=6443] [--address=127.0.0.1] [--data-dir=DIR] [--write-kubeconfig=FILE] [options]",
             (("Serve on the default port, with data in $KUBELITE_HOME or ~/.kubelite", ("serve",)),
              ("Any free port, and a kubeconfig for kubectl",
               ("serve --port=0 --write-kubeconfig=./kubeconfig",)),
              ("Keep everything in memory (gone when the server stops)", ("serve --storage=memory://",)),
              ("An API server alone, as kube-apiserver without a controller manager",
               ("serve --controllers=-*",)),
              ("Two servers on one etcd: the controllers run in whichever holds the Lease",
               ("serve --port=6443 --storage=etcd://127.0.0.1:2379",
                "serve --port=6444 --storage=etcd://127.0.0.1:2379"))),
             defaults={"data-dir": "''", "write-kubeconfig": "''", "storage": "''", "etcd-cafile": "''",
                       "etcd-certfile": "''", "etcd-keyfile": "''", "etcd-compaction-interval": "5m0s",
                       "leader-elect": "true", "leader-elect-lease-duration": "15s",
                       "leader-elect-renew-deadline": "10s", "leader-elect-retry-period": "2s"},
             docs=_docs(address="The IP address to listen on.",
                        controllers="The controllers to run, as kube-controller-manager's flag: '*' every one, "
                                    "'NAME' turns one on, '-NAME' off; the scheduler and the simulated nodes and "
                                    "kubelet count as controllers here ('-*': no controllers at all).",
                        nodes="How many simulated nodes (node-a, node-b, ...) run the cluster's pods.",
                        data_dir="Where objects, certificates and the token are kept (default $KUBELITE_HOME, "
                                 "or ~/.kubelite).",
                        port="The port to listen on; 0 picks a free one.",
                        write_kubeconfig="Write a kubeconfig for this server (CA and token embedded) to this file.",
                        storage="Where to store objects: a SQLite path (sqlite:PATH), etcd://HOST:PORT[,HOST:PORT...] "
                                "(several servers may share it), or memory: (default: the data directory's "
                                "state.db).",
                        etcd_cafile="Verify etcd's serving certificate with this CA bundle (speaks https to etcd).",
                        etcd_certfile="Client certificate to present to etcd.",
                        etcd_keyfile="Private key of --etcd-certfile.",
                        etcd_compaction_interval="How often the store's old revisions are compacted; 0 never.",
                        leader_elect="Run the controllers only while this server holds the Lease "
                                     "kube-system/kube-controller-manager, so that servers sharing a store take "
                                     "turns.",
                        leader_elect_lease_duration="How long a Lease not renewed keeps other servers waiting.",
                        leader_elect_renew_deadline="How long the leader keeps trying to renew before it stops "
                                                    "leading.",
                        leader_elect_retry_period="How often servers try to acquire or renew the Lease.",
                        workers="How many processes serve the port, on the one store (a SQLite file or etcd, "
                                "not memory): more than one puts every core to work."))
