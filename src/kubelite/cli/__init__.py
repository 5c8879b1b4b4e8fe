"""kubectl-shaped command line."""
