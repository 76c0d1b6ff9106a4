"""Asset keys and group names: one word follows a family through every layer (DESIGN §1)."""

import dagster as dg

LANDING_GROUP = "landing"
RAW_GROUP = "raw"
REPORT_GROUP = "reports"
DOCS_KEY = dg.AssetKey(["docs", "dbt"])


def landing_key(family_key: str) -> dg.AssetKey:
    return dg.AssetKey(["landing", family_key])


def raw_key(family_key: str) -> dg.AssetKey:
    return dg.AssetKey(["raw", family_key])


def report_key(name: str) -> dg.AssetKey:
    return dg.AssetKey(["report", name])
