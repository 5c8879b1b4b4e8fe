"""Kubeconfig, discovery, dynamic resource client and transports."""
