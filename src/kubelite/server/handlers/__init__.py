"""HTTP handlers of the API server: they translate requests into calls on the core
(`kubelite.server.core.APIServer`) and results into responses. No API semantics live here."""
