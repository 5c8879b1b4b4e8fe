"""What `-h` says for the node commands: cordon, uncordon, drain, taint and top.

The wording is kubelite's own; the layout, the flag names and their defaults follow kubectl 1.32
(tests/cli/test_help_all.py compares them with the real kubectl).
"""
from __future__ import annotations

from kubelite.cli.help import Help

_DRY_RUN = 'One of "none", "server" or "client": client only prints what would change, server has the ' \
           "server check the change without keeping it."
_NODE_SELECTOR = "Act on the nodes whose labels match this selector (key=value, key!=value, ...) instead of " \
                 "named nodes."

RECORDS = [
    Help("cordon", "Mark nodes as unschedulable.\n\n"
         " The scheduler places no new pod on a cordoned node; pods already there keep running.",
         "cordon NODE [options]",
         (("Keep new pods off node-a", ("cordon node-a",)),),
         docs={"dry-run": _DRY_RUN, "selector": _NODE_SELECTOR}),
    Help("uncordon", "Mark nodes as schedulable again.",
         "uncordon NODE [options]",
         (("Let the scheduler use node-a again", ("uncordon node-a",)),),
         docs={"dry-run": _DRY_RUN, "selector": _NODE_SELECTOR}),
    Help("drain", "Empty nodes before maintenance.\n\n"
         " The nodes are cordoned first, then their pods are evicted through the eviction API (so "
         "PodDisruptionBudgets are respected), or deleted with --disable-eviction, and drain waits until "
         "they are gone. Mirror pods are left alone. Pods of a DaemonSet stop the drain unless "
         "--ignore-daemonsets is given, and are never removed: their controller would put them back at "
         "once. Pods no controller manages (they would not come back anywhere) need --force, pods with "
         "emptyDir data need --delete-emptydir-data.\n\n"
         " Use uncordon when the node may take pods again.",
         "drain NODE [options]",
         (("Empty node-a, including pods no controller manages", ("drain node-a --force",)),
          ("Leave DaemonSet pods and give every pod 15 minutes to stop",
           ("drain node-a --ignore-daemonsets --grace-period=900",))),
         defaults={"timeout": "0s"},
         docs={"chunk-size": "List pods in pages of this many (0 lists them all at once).",
               "delete-emptydir-data": "Also remove pods that keep data in emptyDir volumes (the data is lost).",
               "disable-eviction": "Delete pods instead of evicting them, ignoring PodDisruptionBudgets.",
               "dry-run": _DRY_RUN,
               "force": "Also remove pods that no controller manages.",
               "grace-period": "Seconds each pod gets to stop; negative uses the pod's own setting.",
               "ignore-daemonsets": "Go on despite DaemonSet pods (they stay on the node).",
               "pod-selector": "Only remove the pods whose labels match this selector.",
               "selector": _NODE_SELECTOR,
               "skip-wait-for-delete-timeout": "Do not wait for pods whose deletion started more than this "
                                               "many seconds ago (0 always waits).",
               "timeout": "Give up after this long; 0 waits as long as it takes."}),
    Help("taint", "Add, change or remove taints of nodes.\n\n"
         " A taint is KEY=VALUE:EFFECT (the value may be left out); the effect is NoSchedule, "
         "PreferNoSchedule or NoExecute. KEY:EFFECT- removes the taint with that key and effect, KEY- "
         "every taint with that key. A taint whose key and effect a node already has is only replaced "
         "with --overwrite. Keys and values follow the rules of label keys and values (63 characters "
         "at most; a key may have a DNS subdomain prefix).",
         "taint NODE NAME KEY_1=VAL_1:TAINT_EFFECT_1 ... KEY_N=VAL_N:TAINT_EFFECT_N [options]",
         (("Keep pods without a matching toleration off node-a", ("taint nodes node-a dedicated=batch:NoSchedule",)),
          ("Remove that taint, then every taint with the key",
           ("taint nodes node-a dedicated=batch:NoSchedule-", "taint nodes node-a dedicated-")),
          ("Taint the nodes with a label", ("taint nodes -l pool=gpu gpu=yes:PreferNoSchedule",)),
          ("Taint every node", ("taint nodes --all maintenance=soon:NoExecute",))),
         defaults={"field-manager": "'kubectl-taint'"},
         docs={"all": "Act on every node of the cluster.",
               "dry-run": _DRY_RUN,
               "overwrite": "Replace a taint the node already has with the same key and effect.",
               "selector": _NODE_SELECTOR}),
    Help("top", "Show how much CPU and memory nodes or pods use.\n\n"
         " The figures come from the metrics API (metrics.k8s.io), which the cluster must serve.",
         "top [flags] [options]",
         subcommands=(("node", "Show how much CPU and memory nodes use"),
                      ("pod", "Show how much CPU and memory pods use"))),
    Help("top node", "Show how much CPU and memory nodes use.",
         "top node [NAME | -l label] [options]",
         (("Every node", ("top node",)), ("One node", ("top node node-a",))),
         aliases=("node", "nodes", "no"),
         docs={"no-headers": "Leave the header line out.",
               "selector": "Only the nodes whose labels match this selector.",
               "show-capacity": "Compare usage with each node's capacity instead of what is allocatable.",
               "sort-by": "Sort by cpu or memory.",
               "use-protocol-buffers": "Ask the metrics API for protocol buffers."}),
    Help("top pod", "Show how much CPU and memory pods use.",
         "top pod [NAME | -l label] [options]",
         (("The pods of the current namespace", ("top pod",)), ("Per container", ("top pod web-0 --containers",))),
         aliases=("pod", "pods", "po"),
         docs={"all-namespaces": "Pods of every namespace.",
               "containers": "One line per container.",
               "field-selector": "Only the pods whose fields match this selector.",
               "no-headers": "Leave the header line out.",
               "selector": "Only the pods whose labels match this selector.",
               "sort-by": "Sort by cpu or memory.",
               "sum": "Add a line with the totals.",
               "use-protocol-buffers": "Ask the metrics API for protocol buffers."}),
]
