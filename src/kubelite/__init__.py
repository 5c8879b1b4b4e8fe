"""kubelite: kubectl's object management in Python, with a Kubernetes API server built in."""

__version__ = "0.1.0"

# The Kubernetes minor version whose API kubelite speaks by default (matches kubectl 1.32).
KUBERNETES_VERSION = "1.32"
