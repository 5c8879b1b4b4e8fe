"""What `-h` says for the imperative commands: descriptions, examples and flag descriptions.

The wording is kubelite's own; the layout, the aliases, the flag names and their defaults follow
kubectl 1.32 (tests/imperative/test_help.py compares them with the real kubectl at test time).
"""
from __future__ import annotations

from kubelite.cli.help import Help

# flag -> description, for every flag of the imperative commands
FLAG_DOCS = {
    "aggregation-rule": "Label selectors (key=value) naming the cluster roles whose rules are combined into this one.",
    "all": "Act on every object of the given types in the namespace.",
    "allow-missing-template-keys": "Keep going when a template names a field or key the object lacks "
                                   "(golang and jsonpath output only).",
    "annotation": "An annotation for the ingress, as key=value. Repeat the flag for more.",
    "annotations": "Annotations to put on the pod, as key=value. Repeat the flag for more.",
    "append-hash": "Add a hash of the contents to the name.",
    "attach": "Stay attached to the pod's process after starting it.",
    "cascade": "How dependents of a deleted pod go: background, orphan or foreground.",
    "cert": "Path to the PEM certificate (chain) file.",
    "class": "The ingress class the ingress belongs to.",
    "cluster-ip": "The cluster IP to give the new service; leave empty to have one allocated, or use None "
                  "for a headless service.",
    "clusterip": "The cluster IP to give the service; leave empty to have one allocated, or use None for a "
                 "headless service.",
    "clusterrole": "The cluster role the binding grants.",
    "command": "Treat the arguments after -- as the container's command instead of its arguments.",
    "containers": "Only change the containers whose names match this pattern.",
    "cpu-percent": "The average CPU use, in percent of the requested CPU, the autoscaler aims for; "
                   "-1 leaves the server's default policy in place.",
    "default-backend": "The backend (svcname:port) for requests matching no rule.",
    "description": "A human-readable note on when this priority class should be used.",
    "docker-email": "Email address for the registry account.",
    "docker-password": "Password for the registry account.",
    "docker-server": "The address of the container registry.",
    "docker-username": "User name for the registry account.",
    "dry-run": 'One of "none", "server" or "client". client prints the object without sending it; server '
               "sends it for validation without storing it.",
    "edit": "Open the objects in an editor before creating them.",
    "env": "An environment variable for the container, as NAME=value. Repeat the flag for more.",
    "expose": "Also create a ClusterIP service for the pod, using --port.",
    "external-ip": "An extra external IP address the service accepts traffic on.",
    "external-name": "The external DNS name the service points to.",
    "field-manager": "The field manager name recorded for the changes.",
    "filename": "Files, directories or URLs with the objects to work on.",
    "force": "Delete the pod at once, without waiting for it to stop (with --grace-period=0).",
    "from": "Where to take the values from: a resource such as configmap/NAME or cronjob/NAME.",
    "from-env-file": "Path to a file of KEY=value lines to read the data from.",
    "from-file": "A file or directory to read the data from, optionally as key=path.",
    "from-literal": "A literal value for a key, as key=value.",
    "global-default": "Make this priority class the default for pods without one.",
    "grace-period": "Seconds the pod gets to stop; negative uses the pod's own setting.",
    "group": "Groups to bind the role to. Repeat the flag for more.",
    "hard": "Resource limits of the quota, as resource=quantity pairs separated by commas.",
    "image": "The container image to run.",
    "image-pull-policy": "When to pull the container image: Always, IfNotPresent or Never.",
    "key": "Path to the PEM private key file.",
    "keys": "Only take these keys from the --from source.",
    "kustomize": "A kustomization directory to build the objects from (not together with -f).",
    "labels": "Labels to put on the object, as key=value pairs separated by commas.",
    "leave-stdin-open": "Keep stdin open after the first attached session ends.",
    "limits": "Resource limits for the containers, such as cpu=200m,memory=512Mi.",
    "list": "Print the environment variables instead of changing them.",
    "load-balancer-ip": "The IP address the load balancer should use, if the provider supports it.",
    "local": "Work only on the given files, without contacting the server.",
    "max": "The most pods the autoscaler may scale up to (required).",
    "max-unavailable": "The most pods (number or percentage) that may be unavailable.",
    "min": "The fewest pods the autoscaler may scale down to; -1 leaves the server's default.",
    "min-available": "The fewest pods (number or percentage) that must stay available.",
    "name": "The name of the new object.",
    "node-port": "The port to open on every node for the service.",
    "non-resource-url": "A URL path the rule grants access to, such as /healthz.",
    "output": "Output format: json, yaml, name, go-template, go-template-file, template, templatefile, "
              "jsonpath, jsonpath-as-json or jsonpath-file.",
    "override-type": "How --overrides is applied: json, merge or strategic.",
    "overrides": "A JSON patch applied to the generated object before it is sent.",
    "overwrite": "Replace existing values; when false, keep them.",
    "pod-running-timeout": "How long to wait for the pod to start running (such as 5s, 2m).",
    "port": "The port the object serves on.",
    "preemption-policy": "Whether pods of this class may preempt lower-priority pods.",
    "prefix": "A prefix for the names of the variables taken from --from.",
    "privileged": "Run the container privileged.",
    "protocol": "The network protocol of the service's port.",
    "quiet": "Print nothing but errors.",
    "raw": "A server path to POST the input to, using the kubeconfig's transport.",
    "recursive": "Descend into the directories given with -f.",
    "replicas": "How many replicas to run.",
    "requests": "Resource requests for the containers, such as cpu=100m,memory=256Mi.",
    "resolve": "With --list, show the values that references point to.",
    "resource": "A resource the rule applies to.",
    "resource-name": "A name of an object the rule is limited to. Repeat the flag for more.",
    "resource-version": "Only change the object if it is still at this resource version.",
    "restart": "The restart policy of the pod: Always, OnFailure or Never.",
    "rm": "Delete the pod once its attached process ends.",
    "role": "The role the binding grants.",
    "rule": "A rule of the form host/path=service:port[,tls[=secret]]; a trailing * in the path makes it "
            "a prefix match.",
    "save-config": "Store the object's configuration in an annotation, so that a later apply can compare "
                   "with it.",
    "schedule": "The cron schedule the job runs on.",
    "scopes": "Quota scopes, separated by commas, that objects must match to count.",
    "selector": "A label selector to pick the objects, such as key1=value1,key2=value2.",
    "serviceaccount": "Service accounts to bind, as namespace:name. Repeat the flag for more.",
    "session-affinity": "Session affinity of the service: None or ClientIP.",
    "show-managed-fields": "Keep metadata.managedFields in JSON or YAML output.",
    "stdin": "Keep stdin open on the container.",
    "target-port": "The port on the pods the service forwards to (number or name).",
    "tcp": "Port pairs, as port:targetPort.",
    "template": "The template, or a file holding it, for -o go-template and -o go-template-file.",
    "timeout": "How long to wait before giving up on a delete (0 computes it from the object's size).",
    "tty": "Give the container a TTY.",
    "type": "The type of the object to create.",
    "user": "Users to bind the role to. Repeat the flag for more.",
    "validate": 'Schema validation: "strict" (or true) rejects invalid input, "warn" reports unknown or '
                'duplicate fields, "ignore" (or false) checks nothing.',
    "value": "The priority value; pods of higher classes are scheduled first.",
    "verb": "A verb the rule allows, such as get or list.",
    "wait": "Wait for the resources to be gone before returning.",
    "windows-line-endings": "Use the platform's line endings in the editor (only with --edit).",
}

_DRY = "[--dry-run=server|client|none]"

CREATE_SUBCOMMANDS = (
    ("clusterrole", "Make a cluster role"),
    ("clusterrolebinding", "Bind a cluster role to users, groups or service accounts cluster-wide"),
    ("configmap", "Make a config map from files, directories, env files or literals"),
    ("cronjob", "Make a cron job that runs an image on a schedule"),
    ("deployment", "Make a deployment running one or more images"),
    ("ingress", "Make an ingress from routing rules"),
    ("job", "Make a job that runs an image once"),
    ("namespace", "Make a namespace"),
    ("poddisruptionbudget", "Make a pod disruption budget for a set of pods"),
    ("priorityclass", "Make a priority class"),
    ("quota", "Make a resource quota"),
    ("role", "Make a role with one rule"),
    ("rolebinding", "Bind a role or cluster role to users, groups or service accounts in a namespace"),
    ("secret", "Make a secret (pick a type subcommand)"),
    ("service", "Make a service (pick a type subcommand)"),
    ("serviceaccount", "Make a service account"),
    ("token", "Ask the server for a service account token"),
)

SET_SUBCOMMANDS = (
    ("env", "Change the environment variables of pod templates"),
    ("image", "Change container images of pod templates"),
    ("resources", "Change resource requests and limits of pod templates"),
    ("selector", "Replace the selector of a resource"),
    ("serviceaccount", "Change the service account of pod templates"),
    ("subject", "Change the users, groups or service accounts of role bindings"),
)


def _create(path, what, usage, examples, aliases=(), **kw) -> Help:
    return Help(f"create {path}", what, f"create {path} {usage}", examples, aliases,
                defaults={"field-manager": "'kubectl-create'", **kw.pop("defaults", {})}, **kw)


HELP = {h.command: h for h in [
    Help("create", "Create objects from files or standard input.\n\n Both YAML and JSON are read.",
         "create -f FILENAME [options]",
         (("Create everything described in a file", ("create -f ./app.yaml",)),
          ("Create from standard input", ("create -f - < pod.json",)),
          ("Change the objects in an editor first, then create them", ("create -f app.yaml --edit -o json",))),
         subcommands=CREATE_SUBCOMMANDS, defaults={"field-manager": "'kubectl-create'"}),
    _create("deployment", "Create a deployment with the given name.", "NAME --image=image -- [COMMAND] [args...] [options]",
            (("A deployment called web running nginx", ("create deployment web --image=nginx",)),
             ("A deployment whose container runs a command", ("create deployment clock --image=busybox -- date",)),
             ("Three replicas exposing port 8080", ("create deployment api --image=example/api --replicas=3 --port=8080",)),
             ("Two containers in one pod", ("create deployment pair --image=nginx --image=redis",))),
            ("deployment", "deploy"), defaults={"replicas": "1", "port": "-1"}),
    Help("create token", "Ask the server for a token that authenticates as a service account (a TokenRequest).\n\n"
         " The token alone is printed, without a newline unless the output is a terminal; -o prints the whole "
         "TokenRequest the server answered, with its expiration time.",
         "create token SERVICE_ACCOUNT_NAME [options]",
         (("A token for the service account builder", ("create token builder",)),
          ("A token for a service account of another namespace", ("create token builder --namespace ci",)),
          ("A token that lasts an hour", ("create token builder --duration 1h",)),
          ("A token meant for another audience than the API server", ("create token builder --audience vault",)),
          ("A token that stops working when the secret is deleted",
           ("create token builder --bound-object-kind Secret --bound-object-name builder-key",)),
          ("The same, pinned to one incarnation of that secret",
           ("create token builder --bound-object-kind Secret --bound-object-name builder-key "
            "--bound-object-uid 6f0b1c2e-4d7a-4c55-9e51-1a2b3c4d5e6f",))),
         defaults={"duration": "0s", "allow-missing-template-keys": "true", "show-managed-fields": "false"},
         docs={"audience": "Who the token is meant for (repeat for several); the API server when not given.",
               "duration": "How long the token should last (such as 1h); 0 lets the server decide, and the server "
                           "may grant another lifetime.",
               "bound-object-kind": "Tie the token to an object of this kind: Node, Pod or Secret (needs "
                                    "--bound-object-name).",
               "bound-object-name": "The object the token is tied to; the token stops working once it is deleted.",
               "bound-object-uid": "The UID the tied object must have; the current object's UID when not given.",
               "output": "Output format: json, yaml, name, go-template, go-template-file, template, templatefile, "
                         "jsonpath, jsonpath-as-json or jsonpath-file (the token alone when not given)."}),
    Help("create service", "Create a service; the subcommand picks its type.", "create service [flags] [options]",
         aliases=("service", "svc"),
         subcommands=(("clusterip", "Make a ClusterIP service"), ("externalname", "Make an ExternalName service"),
                      ("loadbalancer", "Make a LoadBalancer service"), ("nodeport", "Make a NodePort service"))),
    _create("service clusterip", "Create a ClusterIP service with the given name.",
            f"NAME [--tcp=<port>:<targetPort>] {_DRY} [options]",
            (("A ClusterIP service forwarding port 80 to 8080", ("create service clusterip web --tcp=80:8080",)),
             ("A headless service", ("create service clusterip db --clusterip=\"None\"",)))),
    _create("service nodeport", "Create a NodePort service with the given name.",
            f"NAME [--tcp=port:targetPort] {_DRY} [options]",
            (("A NodePort service forwarding port 80 to 8080", ("create service nodeport web --tcp=80:8080",)),
             ("Pin the port opened on each node", ("create service nodeport web --tcp=80:8080 --node-port=30080",)))),
    _create("service loadbalancer", "Create a LoadBalancer service with the given name.",
            f"NAME [--tcp=port:targetPort] {_DRY} [options]",
            (("A LoadBalancer service forwarding port 443 to 8443", ("create service loadbalancer edge --tcp=443:8443",)),)),
    _create("service externalname", "Create an ExternalName service with the given name.\n\n"
            " Such a service is a DNS alias (CNAME) for a name outside the cluster; no proxying happens.",
            f"NAME --external-name external.name {_DRY} [options]",
            (("Point the name db at a hosted database", ("create service externalname db --external-name db.example.net",)),)),
    _create("configmap", "Create a config map from files, directories, env files or literal values.\n\n"
            " A file's base name becomes its key unless key=path is given; a directory contributes every regular "
            "file in it whose name is a valid key.",
            f"NAME [--from-file=[key=]source] [--from-literal=key1=value1] {_DRY} [options]",
            (("From every file in a directory", ("create configmap settings --from-file=./conf/",)),
             ("From files, one with a chosen key", ("create configmap settings --from-file=app.ini --from-file=log=./logging.ini",)),
             ("From literal values", ("create configmap flags --from-literal=mode=fast --from-literal=level=3",)),
             ("From an env file", ("create configmap env --from-env-file=./app.env",))),
            ("configmap", "cm")),
    Help("create secret", "Create a secret; the subcommand picks its type.",
         "create secret (docker-registry | generic | tls) [options]",
         subcommands=(("docker-registry", "Make a secret holding registry credentials"),
                      ("generic", "Make a secret from files, directories, env files or literals"),
                      ("tls", "Make a secret holding a certificate and its key"))),
    _create("secret generic", "Create a secret from files, directories, env files or literal values.\n\n"
            " Keys are chosen as for config maps: a file's base name, or key=path.",
            f"NAME [--type=string] [--from-file=[key=]source] [--from-literal=key1=value1] {_DRY} [options]",
            (("From the files in a directory", ("create secret generic creds --from-file=./secrets/",)),
             ("From literal values", ("create secret generic login --from-literal=user=admin --from-literal=password=s3cret",)),
             ("From an env file", ("create secret generic env --from-env-file=./prod.env",)))),
    _create("secret tls", "Create a TLS secret from a certificate and its private key.\n\n"
            " The certificate and key must be PEM encoded and must match.",
            f"NAME --cert=path/to/cert/file --key=path/to/key/file {_DRY} [options]",
            (("A TLS secret from files on disk", ("create secret tls site-tls --cert=site.crt --key=site.key",)),)),
    _create("secret docker-registry", "Create a secret holding credentials for a container registry.\n\n"
            " Pods name it in imagePullSecrets to pull private images.",
            "NAME --docker-username=user --docker-password=password --docker-email=email [--docker-server=string] "
            f"[--from-file=[key=]source] {_DRY} [options]",
            (("Credentials for a private registry", ("create secret docker-registry pull --docker-server=registry.example "
                                                     "--docker-username=bot --docker-password=token --docker-email=bot@example.org",)),
             ("From an existing docker config file", ("create secret docker-registry pull --from-file=.dockerconfigjson=./config.json",)))),
    _create("namespace", "Create a namespace with the given name.", f"NAME {_DRY} [options]",
            (("A namespace called staging", ("create namespace staging",)),), ("namespace", "ns")),
    _create("serviceaccount", "Create a service account with the given name.", f"NAME {_DRY} [options]",
            (("A service account called builder", ("create serviceaccount builder",)),), ("serviceaccount", "sa")),
    _create("job", "Create a job with the given name.", "NAME --image=image [--from=cronjob/name] -- [COMMAND] [args...] [options]",
            (("A job running an image", ("create job migrate --image=example/migrate",)),
             ("A job running a command", ("create job hello --image=busybox -- echo hello",)),
             ("Run a cron job's template now", ("create job nightly-now --from=cronjob/nightly",)))),
    _create("cronjob", "Create a cron job with the given name.",
            "NAME --image=image --schedule='0/5 * * * ?' -- [COMMAND] [args...] [flags] [options]",
            (("A cron job every ten minutes", ("create cronjob sweep --image=busybox --schedule=\"*/10 * * * *\"",)),
             ("With a command", ("create cronjob sweep --image=busybox --schedule=\"*/10 * * * *\" -- sh -c 'echo sweep'",))),
            ("cronjob", "cj")),
    _create("role", "Create a role holding one rule.",
            f"NAME --verb=verb --resource=resource.group/subresource [--resource-name=resourcename] {_DRY} [options]",
            (("Read pods", ("create role pod-reader --verb=get,list,watch --resource=pods",)),
             ("Read two named pods", ("create role pick --verb=get --resource=pods --resource-name=a --resource-name=b",)),
             ("Update deployments' scale", ("create role scaler --verb=update --resource=deployments.apps/scale",)))),
    _create("clusterrole", "Create a cluster role.",
            f"NAME --verb=verb --resource=resource.group [--resource-name=resourcename] {_DRY} [options]",
            (("Read nodes everywhere", ("create clusterrole node-reader --verb=get,list --resource=nodes",)),
             ("Allow the health endpoints", ("create clusterrole probe --verb=get --non-resource-url=/healthz,/readyz",)),
             ("Combine other cluster roles by label", ("create clusterrole monitoring --aggregation-rule=\"team=obs\"",)))),
    _create("rolebinding", "Create a role binding for a role or a cluster role.",
            "NAME --clusterrole=NAME|--role=NAME [--user=username] [--group=groupname] "
            f"[--serviceaccount=namespace:serviceaccountname] {_DRY} [options]",
            (("Grant a role to a user", ("create rolebinding ann-reads --role=pod-reader --user=ann",)),
             ("Grant a cluster role within one namespace", ("create rolebinding ci-edit --clusterrole=edit --serviceaccount=ci:builder",)))),
    _create("clusterrolebinding", "Create a cluster role binding for a cluster role.",
            "NAME --clusterrole=NAME [--user=username] [--group=groupname] "
            f"[--serviceaccount=namespace:serviceaccountname] {_DRY} [options]",
            (("Grant a cluster role to a group", ("create clusterrolebinding ops-view --clusterrole=view --group=ops",)),)),
    _create("quota", "Create a resource quota with the given name, limits and scopes.",
            f"NAME [--hard=key1=value1,key2=value2] [--scopes=Scope1,Scope2] {_DRY} [options]",
            (("Cap pods and CPU", ("create quota small --hard=pods=10,requests.cpu=2",)),
             ("Count only best-effort pods", ("create quota be --hard=pods=5 --scopes=BestEffort",))),
            ("quota", "resourcequota")),
    _create("poddisruptionbudget", "Create a pod disruption budget for the pods a selector picks.",
            f"NAME --selector=SELECTOR --min-available=N {_DRY} [options]",
            (("Keep two web pods up", ("create poddisruptionbudget web --selector=app=web --min-available=2",)),
             ("Allow a quarter of the workers to be down", ("create pdb workers --selector=app=worker --max-unavailable=25%",))),
            ("poddisruptionbudget", "pdb")),
    _create("priorityclass", "Create a priority class with the given name and value.",
            f"NAME --value=VALUE --global-default=BOOL {_DRY} [options]",
            (("A high priority class", ("create priorityclass urgent --value=100000 --description=\"on-call workloads\"",)),
             ("The default class", ("create priorityclass normal --value=1000 --global-default=true",)),
             ("A class that never preempts", ("create priorityclass polite --value=500 --preemption-policy=Never",))),
            ("priorityclass", "pc")),
    _create("ingress", "Create an ingress with the given name.",
            "NAME --rule=host/path=service:port[,tls[=secret]]  [options]",
            (("Route a host to a service", ("create ingress site --rule=\"example.org/=web:80\"",)),
             ("Prefix match with TLS from a secret", ("create ingress api --rule=\"api.example.org/v1*=api:8080,tls=api-tls\"",)),
             ("A class and a default backend", ("create ingress main --class=nginx --default-backend=fallback:80 "
                                               "--rule=\"example.org/=web:80\"",))),
            ("ingress", "ing")),
    Help("run", "Start a pod running an image.",
         "run NAME --image=image [--env=\"key=value\"] [--port=port] [--dry-run=server|client] [--overrides=inline-json] "
         "[--command] -- [COMMAND] [args...] [options]",
         (("A pod running nginx", ("run web --image=nginx",)),
          ("With a port, labels and an environment variable",
           ("run web --image=nginx --port=80 --labels=app=web --env=MODE=prod",)),
          ("Replace the image's command", ("run clock --image=busybox --command -- date",)),
          ("Print the pod instead of creating it", ("run web --image=nginx --dry-run=client -o yaml",))),
         defaults={"field-manager": "'kubectl-run'", "restart": "'Always'"}, hidden=("hostport", "validate")),
    Help("expose", "Create a service in front of an existing resource.\n\n"
         " The resource's selector (or a pod's labels) becomes the service's selector, and its ports the "
         "service's ports unless --port says otherwise. Deployments, replica sets, replication controllers, "
         "pods and services can be exposed.",
         "expose (-f FILENAME | TYPE NAME) [--port=port] [--protocol=TCP|UDP|SCTP] [--target-port=number-or-name] "
         "[--name=name] [--external-ip=external-ip-of-service] [--type=type] [options]",
         (("Expose a deployment's ports", ("expose deployment web",)),
          ("Serve port 80 from the pods' port 8080", ("expose deployment web --port=80 --target-port=8080",)),
          ("A NodePort service for a pod", ("expose pod debug --port=22 --type=NodePort --name=debug-ssh",)),
          ("Expose what a file describes", ("expose -f web.yaml --port=80",))),
         defaults={"field-manager": "'kubectl-expose'"}),
    Help("autoscale", "Create a horizontal pod autoscaler for a deployment, replica set, stateful set or "
         "replication controller.\n\n The autoscaler keeps the number of pods between --min and --max, aiming at "
         "--cpu-percent of the requested CPU.",
         "autoscale (-f FILENAME | TYPE NAME | TYPE/NAME) [--min=MINPODS] --max=MAXPODS [--cpu-percent=CPU] [options]",
         (("Between one and five pods, with the default CPU target", ("autoscale deployment web --max=5",)),
          ("Between two and ten pods at 70% CPU", ("autoscale deployment web --min=2 --max=10 --cpu-percent=70",))),
         defaults={"field-manager": "'kubectl-autoscale'", "max": "-1", "min": "-1", "cpu-percent": "-1"}),
    Help("set", "Change fields of existing objects.\n\n The subcommands change one aspect each.",
         "set SUBCOMMAND [options]", subcommands=SET_SUBCOMMANDS),
    Help("set image", "Change the images of containers in pod templates.\n\n"
         " Pods, replication controllers, deployments, daemon sets, stateful sets, cron jobs and replica sets.",
         "set image (-f FILENAME | TYPE NAME) CONTAINER_NAME_1=CONTAINER_IMAGE_1 ... CONTAINER_NAME_N=CONTAINER_IMAGE_N "
         "[options]",
         (("One container's image", ("set image deployment/web nginx=nginx:1.27",)),
          ("Every container of every deployment", ("set image deployments --all *=example/base:2",)),
          ("Change a local file and print it", ("set image -f web.yaml nginx=nginx:1.27 --local -o yaml",))),
         defaults={"field-manager": "'kubectl-set'"}),
    Help("set env", "Change the environment variables of pod templates.\n\n"
         " KEY=value sets a variable, KEY- removes it, and --from copies the keys of a config map or secret.",
         "set env RESOURCE/NAME KEY_1=VAL_1 ... KEY_N=VAL_N [options]",
         (("Set a variable", ("set env deployment/web MODE=prod",)),
          ("Remove a variable", ("set env deployment/web MODE-",)),
          ("Copy a config map's keys", ("set env deployment/web --from=configmap/settings",)),
          ("List the variables", ("set env deployment/web --list",))),
         defaults={"field-manager": "'kubectl-set'"}),
    Help("set resources", "Change the resource requests and limits of containers in pod templates.",
         "set resources (-f FILENAME | TYPE NAME)  ([--limits=LIMITS & --requests=REQUESTS] [options]",
         (("Limit CPU and memory of every container", ("set resources deployment web --limits=cpu=500m,memory=256Mi",)),
          ("Requests for one container", ("set resources deployment web -c=nginx --requests=cpu=100m",))),
         defaults={"field-manager": "'kubectl-set'"}),
    Help("set selector", "Replace the selector of a resource.\n\n Expressions are key=value pairs; the old selector "
         "is dropped.",
         "set selector (-f FILENAME | TYPE NAME) EXPRESSIONS [--resource-version=version] [options]",
         (("Select a new label on a service read from a pipe",
           ("create service clusterip db --clusterip=\"None\" -o yaml --dry-run=client | kubelite set selector "
            "--local -f - 'tier=db' -o yaml",)),),
         defaults={"field-manager": "'kubectl-set'"}, hidden=("selector", "kustomize")),
    Help("set serviceaccount", "Change the service account of pod templates.",
         "set serviceaccount (-f FILENAME | TYPE NAME) SERVICE_ACCOUNT [options]",
         (("Run a deployment's pods as builder", ("set serviceaccount deployment web builder",)),),
         aliases=("serviceaccount", "sa"), defaults={"field-manager": "'kubectl-set'"}, hidden=("selector",)),
    Help("set subject", "Change the users, groups or service accounts of role bindings and cluster role bindings.",
         "set subject (-f FILENAME | TYPE NAME) [--user=username] [--group=groupname] "
         f"[--serviceaccount=namespace:serviceaccountname] {_DRY} [options]",
         (("Add a user to a role binding", ("set subject rolebinding readers --user=ann",)),
          ("Add a service account to a cluster role binding", ("set subject clusterrolebinding viewers --serviceaccount=ci:bot",))),
         defaults={"field-manager": "'kubectl-set'"}),
]}


def _merge_other_commands() -> None:
    """The object-management, discovery and config commands keep their texts in help_texts_manage."""
    from kubelite.cli import help_texts_manage as manage

    for name, doc in manage.MANAGE_FLAG_DOCS.items():
        FLAG_DOCS.setdefault(name, doc)
    HELP.update({h.command: h for h in [*manage.RECORDS, *manage.CONFIG_RECORDS, manage.SERVE]})
    from kubelite.cli.help_texts_nodes import RECORDS as nodes
    from kubelite.cli.rollout_help import HELP as rollout
    from kubelite.cli.troubleshoot_help import HELP as troubleshoot

    HELP.update(rollout)
    HELP.update({h.command: h for h in nodes})
    HELP.update(troubleshoot)
    from kubelite.cli.auth_help import HELP as auth

    HELP.update(auth)
    from kubelite.cli.plugin_help import HELP as plugin

    HELP.update(plugin)
    from kubelite.cli.certificate_help import HELP as certificate

    HELP.update(certificate)


_merge_other_commands()
