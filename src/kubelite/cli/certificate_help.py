"""Help records of `kubelite certificate` and its subcommands (kubelite's own wording, kubectl's layout)."""
from __future__ import annotations

from kubelite.cli.help import Help

HELP = {h.command: h for h in (
    Help("certificate", "Decide certificate signing requests.",
         "certificate SUBCOMMAND [options]",
         subcommands=(("approve", "Approve a certificate signing request"),
                      ("deny", "Deny a certificate signing request"))),
    Help("certificate approve", "Approve a certificate signing request (CSR) so that its signer issues it.\n\n"
         " The request gets an Approved condition, and the signer its signerName names issues the "
         "certificate: for kubernetes.io/kube-apiserver-client, one the API server accepts as the user and "
         "groups of the request's subject.\n\n"
         " Read the request before approving it: the certificate will speak for whoever the subject names.",
         "certificate approve (-f FILENAME | NAME) [options]",
         (("Approve the request alice", ("certificate approve alice",)),),
         docs={"force": "Write the approval again even if the request is already approved.",
               "filename": "Files, directories or URLs naming the requests to approve."}),
    Help("certificate deny", "Refuse a certificate signing request (CSR).\n\n"
         " The request gets a Denied condition: no signer issues its certificate.",
         "certificate deny (-f FILENAME | NAME) [options]",
         (("Deny the request mallory", ("certificate deny mallory",)),),
         docs={"force": "Write the denial again even if the request is already denied.",
               "filename": "Files, directories or URLs naming the requests to deny."}),
)}
