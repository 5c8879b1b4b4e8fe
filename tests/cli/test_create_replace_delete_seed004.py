"""Seed 004 part 4, "Imperative Management of Kubernetes Objects Using Configuration Files",
verbatim with kubelite: create -f, get -f -o yaml, replace -f, delete -f, the generateName note
and the migration steps (get TYPE/NAME -o yaml > file; remove status; replace -f file) - against
the embedded cluster and against `kubelite serve`."""
from __future__ import annotations

import pathlib

import pytest
import yaml

DATA = pathlib.Path(__file__).parent.parent / "data" / "cli"
DEPLOYMENT = DATA / "simple_deployment.yaml"


def _imperative_flow(cli, tmp_path: pathlib.Path) -> None:
    # How to create objects: kubectl create -f <filename|url>
    r = cli.run("create", "-f", str(DEPLOYMENT))
    assert (r.returncode, r.stdout, r.stderr) == (0, "deployment.apps/nginx-deployment created\n", "")

    # Creating again fails with the server's AlreadyExists, naming the file.
    r = cli.run("create", "-f", str(DEPLOYMENT))
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr == (f'Error from server (AlreadyExists): error when creating "{DEPLOYMENT}": '
                        'deployments.apps "nginx-deployment" already exists\n')

    # How to view an object: kubectl get -f <filename|url> -o yaml (one object, not a List)
    r = cli.run("get", "-f", str(DEPLOYMENT), "-o", "yaml")
    assert r.returncode == 0, r.stderr
    live = yaml.safe_load(r.stdout)
    assert live["kind"] == "Deployment" and live["metadata"]["name"] == "nginx-deployment"
    assert live["metadata"]["namespace"] == "default"
    assert live["spec"]["minReadySeconds"] == 5
    assert live["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.14.2"

    # How to update objects: kubectl replace -f <filename|url>
    changed = tmp_path / "changed.yaml"
    doc = yaml.safe_load(DEPLOYMENT.read_text())
    doc["spec"]["minReadySeconds"] = 10
    changed.write_text(yaml.safe_dump(doc))
    r = cli.run("replace", "-f", str(changed))
    assert (r.returncode, r.stdout, r.stderr) == (0, "deployment.apps/nginx-deployment replaced\n", "")
    r = cli.run("get", "deployment/nginx-deployment", "-o", "jsonpath={.spec.minReadySeconds}")
    assert (r.returncode, r.stdout) == (0, "10")

    # Migrating from imperative commands: export, remove status, replace exclusively.
    exported = tmp_path / "deployment_nginx-deployment.yaml"
    r = cli.run("get", "deployment/nginx-deployment", "-o", "yaml")
    assert r.returncode == 0
    doc = yaml.safe_load(r.stdout)
    doc.pop("status", None)
    doc["spec"]["replicas"] = 3
    exported.write_text(yaml.safe_dump(doc))
    r = cli.run("replace", "-f", str(exported))
    assert (r.returncode, r.stdout) == (0, "deployment.apps/nginx-deployment replaced\n"), r.stderr
    r = cli.run("get", "-f", str(exported), "-o", "jsonpath={.spec.replicas}")
    assert r.stdout == "3"

    # How to delete objects: kubectl delete -f <filename|url>
    r = cli.run("delete", "-f", str(DEPLOYMENT))
    assert (r.returncode, r.stdout, r.stderr) == (0, 'deployment.apps "nginx-deployment" deleted\n', "")
    r = cli.run("get", "-f", str(DEPLOYMENT))
    assert r.returncode == 1
    assert r.stderr == 'Error from server (NotFound): deployments.apps "nginx-deployment" not found\n'

    # The generateName note: create works, delete -f cannot name the object; delete TYPE -l can.
    generated = tmp_path / "generated.yaml"
    generated.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: gen-\n"
                         "  labels:\n    seed: four\ndata:\n  a: b\n")
    r = cli.run("create", "-f", str(generated))
    assert r.returncode == 0 and r.stdout.startswith("configmap/gen-") and r.stdout.endswith(" created\n")
    r = cli.run("delete", "-f", str(generated))
    assert r.returncode == 1 and "resource name may not be empty" in r.stderr
    r = cli.run("delete", "configmap", "-l", "seed=four")
    assert r.returncode == 0 and r.stdout.startswith('configmap "gen-') and r.stdout.endswith('" deleted\n')


def test_seed004_imperative_config_embedded(embedded, tmp_path):
    _imperative_flow(embedded, tmp_path)
    # The embedded cluster lives in $KUBELITE_HOME, and nothing was written to ~/.kube.
    assert (embedded.home / "kubelite" / "state.db").exists()
    assert not (embedded.home / ".kube" / "config").exists()


def test_seed004_imperative_config_served(remote, tmp_path):
    _imperative_flow(remote, tmp_path)


def test_create_save_config_and_dry_run(embedded, tmp_path):
    r = embedded.run("create", "-f", str(DEPLOYMENT), "--save-config", "--dry-run=client", "-o", "json")
    assert r.returncode == 0
    assert "kubectl.kubernetes.io/last-applied-configuration" in r.stdout
    r = embedded.run("create", "-f", str(DEPLOYMENT), "--dry-run=server")
    assert (r.returncode, r.stdout) == (0, "deployment.apps/nginx-deployment created (server dry run)\n")
    r = embedded.run("get", "deployments")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "No resources found in default namespace.\n")
    r = embedded.run("create", "-f", str(DEPLOYMENT), "--save-config")
    assert r.returncode == 0
    r = embedded.run("get", "deploy", "nginx-deployment", "-o",
                     "jsonpath={.metadata.annotations.kubectl\\.kubernetes\\.io/last-applied-configuration}")
    # kubectl's text: the file's object with the namespace filled in and empty annotations.
    assert r.stdout == ('{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},'
                        '"name":"nginx-deployment","namespace":"default"},"spec":{"minReadySeconds":5,'
                        '"selector":{"matchLabels":{"app":"nginx"}},"template":{"metadata":{"labels":'
                        '{"app":"nginx"}},"spec":{"containers":[{"image":"nginx:1.14.2","name":"nginx",'
                        '"ports":[{"containerPort":80}]}]}}}}\n')
    r = embedded.run("replace", "--force", "-f", str(DEPLOYMENT))
    assert (r.returncode, r.stdout) == (0, 'deployment.apps "nginx-deployment" deleted\n'
                                           "deployment.apps/nginx-deployment replaced\n"), r.stderr


def test_several_objects_go_on_past_a_failure(embedded, tmp_path):
    both = tmp_path / "both.yaml"
    both.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n---\n"
                    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: two\n")
    assert embedded.run("create", "-f", str(both)).returncode == 0
    r = embedded.run("delete", "configmap", "one")
    assert r.stdout == 'configmap "one" deleted\n'
    r = embedded.run("create", "-f", str(both))
    assert r.returncode == 1
    assert r.stdout == "configmap/one created\n"
    assert r.stderr == (f'Error from server (AlreadyExists): error when creating "{both}": '
                        'configmaps "two" already exists\n')
    r = embedded.run("delete", "cm", "one", "nope", "two")
    assert r.returncode == 1
    assert r.stdout == 'configmap "one" deleted\nconfigmap "two" deleted\n'
    assert r.stderr == 'Error from server (NotFound): configmaps "nope" not found\n'
    r = embedded.run("delete", "cm", "nope", "--ignore-not-found")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")


def test_errors_are_kubectl_lines(embedded):
    r = embedded.run("get", "foo")
    assert (r.returncode, r.stderr) == (1, 'error: the server doesn\'t have a resource type "foo"\n')
    r = embedded.run("get", "deployments.apps", "x")
    assert (r.returncode, r.stderr) == (1, 'Error from server (NotFound): deployments.apps "x" not found\n')
    r = embedded.run("get", "ns", "--bogus")
    assert (r.returncode, r.stderr) == (1, "Error: unknown flag: --bogus\nSee 'kubelite get --help' for usage.\n")
    r = embedded.run("get", "ns", "-o", "nope")
    assert r.returncode == 1 and 'unable to match a printer suitable for the output format "nope"' in r.stderr
