"""Replay exports: windows of the marts in the formats that trace-replay tools read (docs/pages/exports-and-fits.md, Replay
exports). ``formats`` holds one entry per format, ``window`` parses ``--window``, ``hash_ids`` the Mooncake
block rule, ``job_effects`` counts what a job export leaves out and what its consumer drops, ``writer`` writes
a file and its sidecar."""
