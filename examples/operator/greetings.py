"""A small kopf operator: each Greeting gets a ConfigMap holding its message.

    kopf run --standalone -A examples/operator/greetings.py

It is tested against a kubelite cluster served for each test (tests/examples/test_operator.py,
with the `kube_server` fixture of kubelite's pytest plugin).
"""
import os

import kopf
import kubernetes


@kopf.on.login()
def login(**kwargs):
    # kopf reads $KUBECONFIG when it logs in (the official client reads it once, when imported)
    return kopf.login_with_kubeconfig(**kwargs)


@kopf.on.startup()
def configure_client(**_):
    kubernetes.config.load_kube_config(config_file=os.environ.get("KUBECONFIG"))


@kopf.on.create("example.com", "v1", "greetings")
@kopf.on.update("example.com", "v1", "greetings")
def greet(spec, name, namespace, logger, **_):
    """Write (or rewrite) the ConfigMap `<name>-greeting` with the greeting's text."""
    text = f"{spec.get('salutation', 'Hello')}, {spec['to']}!"
    body = {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": f"{name}-greeting", "labels": {"greeting": name}},
            "data": {"message": text}}
    kopf.adopt(body)  # owned by the Greeting: deleted with it by the garbage collector
    core = kubernetes.client.CoreV1Api()
    try:
        core.create_namespaced_config_map(namespace, body)
    except kubernetes.client.ApiException as err:
        if err.status != 409:
            raise
        core.replace_namespaced_config_map(f"{name}-greeting", namespace, body)
    logger.info("greeted %s", spec["to"])
    return {"message": text}
