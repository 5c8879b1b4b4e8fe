"""Admission webhooks: kube-apiserver's MutatingAdmissionWebhook and ValidatingAdmissionWebhook.

The API server calls the webhooks that Mutating/ValidatingWebhookConfigurations register, with an
AdmissionReview v1 over HTTPS, after its own admission (defaults and built-in plugins) and in
kube-apiserver's order: mutating webhooks before validation, validating webhooks after it.

- `config`: the stored configurations, read again when the store moved, with their defaults.
- `matching`: which webhooks a request concerns (rules, scope, selectors, matchPolicy).
- `review`: the AdmissionReview sent and the checks of the one received.
- `caller`: where a webhook lives (URL or Service) and the HTTPS call with its timeout.
- `dispatch`: failure policies, rejections, patches, reinvocation, warnings.
"""
from kubelite.server.webhooks.dispatch import Attributes, WebhookAdmission

__all__ = ["Attributes", "WebhookAdmission"]
