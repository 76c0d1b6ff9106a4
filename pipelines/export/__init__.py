"""Replay exports: windows of the marts in the formats that trace-replay tools read (docs/pages/exports-and-fits.md,
Replay exports). ``formats`` holds one entry per format, ``window`` parses ``--window``, ``hash_ids`` the
Mooncake block rule, ``effects`` an entry of what a consumer does to an export, ``job_effects`` and
``request_effects`` count them, ``transforms`` re-draws arrivals and scales lengths (``fidelity`` checks the
result against its source), ``writer`` writes a file and its sidecar."""
