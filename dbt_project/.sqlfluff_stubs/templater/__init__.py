"""sqlfluff's jinja library (library_path): `dbt` (dbt.py) for dbt's cross-database macros, and at the top
level the stand-ins for this project's macros that return values rather than SQL."""


def partition_replace_config() -> dict:
    """Stand-in for macros/platform/incremental.sql (a config dict per adapter)."""
    return {}
