"""The fitted models of BurstGPT's requests, as three relations of the warehouse:

- ``analysis.arrival_fits`` — one row per model × log type × window (trace-clock hour or day) with at least
  :data:`MIN_ARRIVALS` requests: a Gamma fit of the inter-arrival times (shape = vLLM's ``--burstiness``,
  scale, rate = vLLM's ``--request-rate``; moments, with the maximum-likelihood shape beside it — see
  :mod:`pipelines.analysis.distributions`), their CV, the KS distance and p-value;
- ``analysis.token_length_fits`` — one row per model × log type × side (request / response tokens):
  lognormal and Zipf fits of the not-failed requests' token counts, each with its KS distance;
- ``analysis.request_rate_scaling`` — one row per file × model × log type × speed factor: requests per
  replayed second when the file is replayed that many times faster (:mod:`pipelines.analysis.rate_scaling`).

Every group also has an ``all`` × ``all`` row (every model and log type together: the whole trace as a
replay without filters sees it). ``data_origin`` says whether the rows behind a fit are ``real``,
``synthetic`` or ``mixed`` (the facts' ``_data_origin``): fits of the embedded sample describe generated
rows, not BurstGPT.

How the arrivals are read: every request counts (a failed one arrived too; ``failed_requests`` says how
many); BurstGPT's clock has 1-s resolution, so same-second requests would give gaps of 0 and no Gamma
likelihood. Each request is placed uniformly at random within its second — at ``floor(Timestamp) + u`` with
``u`` in [0, 1) read from its ``request_key`` (an md5: the same request gets the same ``u`` in every
window and every run). For a Poisson process this is exactly the conditional law of the arrivals given
the per-second counts; otherwise sub-second structure is unknown and this assumes none.
``same_second_share`` (gaps of 0 s on the raw clock) says how much of a window the assumption carries.
Windows and groups are never mixed: a window's gaps are between consecutive requests of the same group
inside the window.

The work runs outside ``trace.duckdb``: the facts are read under the writer lock on a read-only connection,
the fits computed in numpy/scipy, written as Parquet to ``$WAREHOUSE_DIR/lake/fits/<table>.parquet`` (atomic
replace), and ``analysis.<table>`` are views over those files, created once: a later build rewrites only the
files, so it does not rewrite the database or its reader snapshot.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from pipelines.analysis.rate_scaling import SPEED_FACTORS, replay_seconds
from pipelines.atomic_write import replacing
from pipelines.settings import Settings

SCHEMA = "analysis"
ARRIVAL_FITS = "arrival_fits"
TOKEN_LENGTH_FITS = "token_length_fits"
REQUEST_RATE_SCALING = "request_rate_scaling"
TABLES = (ARRIVAL_FITS, TOKEN_LENGTH_FITS, REQUEST_RATE_SCALING)

MIN_ARRIVALS = 50  # requests in a window (or a file, for the scaling rows) before it is fitted
MIN_TOKEN_COUNTS = 50  # not-failed requests of a group before its token lengths are fitted
WINDOWS = {"hour": 3_600, "day": 86_400}  # window → seconds, on the trace clock (Timestamp // seconds)
ALL = "all"  # model_name / log_type of the rows fitted over every model and log type together

# u in [0, 1) per request: the first 13 hex digits (52 bits) of its md5 request_key, exact in a double.
_OFFSET_SQL = "coalesce(try_cast('0x' || substr(r.request_key, 1, 13) as bigint), 0) / 4503599627370496.0"

# One number per model × log type present in the facts, in name order (a small join, not a window over
# every request).
_PAIRS_CTE = """
pairs as (
    select
        present.model_key,
        present.log_type_key,
        m.model_name,
        l.log_type,
        row_number() over (order by m.model_name, l.log_type) - 1 as pair
    from (select distinct model_key, log_type_key from marts.fct_request) as present
    inner join marts.dim_model as m on present.model_key = m.model_key
    inner join marts.dim_log_type as l on present.log_type_key = l.log_type_key
)"""

PAIRS_SQL = f"""
with {_PAIRS_CTE}

select model_name, log_type from pairs order by pair
"""

REQUESTS_SQL = f"""
with {_PAIRS_CTE}

select
    pairs.pair,
    cast(floor(r.timestamp_s) as bigint) as second,
    {_OFFSET_SQL} as offset_s,
    r.is_failed,
    r._data_origin = 'real' as is_real,
    r.file_number,
    coalesce(r.request_tokens, 0) as request_tokens,
    coalesce(r.response_tokens, 0) as response_tokens
from marts.fct_request as r
inner join pairs on r.model_key = pairs.model_key and r.log_type_key = pairs.log_type_key
order by second, offset_s
"""

_STR, _INT, _FLOAT = pa.string(), pa.int64(), pa.float64()
SCHEMAS: dict[str, pa.Schema] = {
    ARRIVAL_FITS: pa.schema(
        [
            ("model_name", _STR),
            ("log_type", _STR),
            ("window_kind", _STR),
            ("window_index", _INT),
            ("window_start_s", _INT),
            ("window_seconds", _INT),
            ("requests", _INT),
            ("failed_requests", _INT),
            ("interarrivals", _INT),
            ("mean_interarrival_s", _FLOAT),
            ("request_rate_per_s", _FLOAT),
            ("interarrival_cv", _FLOAT),
            ("gamma_shape", _FLOAT),
            ("gamma_scale_s", _FLOAT),
            ("gamma_shape_mle", _FLOAT),
            ("ks_statistic", _FLOAT),
            ("ks_pvalue", _FLOAT),
            ("same_second_share", _FLOAT),
            ("data_origin", _STR),
        ]
    ),
    TOKEN_LENGTH_FITS: pa.schema(
        [
            ("model_name", _STR),
            ("log_type", _STR),
            ("tokens", _STR),
            ("requests", _INT),
            ("excluded_requests", _INT),
            ("min_tokens", _INT),
            ("median_tokens", _FLOAT),
            ("mean_tokens", _FLOAT),
            ("max_tokens", _INT),
            ("lognormal_mu", _FLOAT),
            ("lognormal_sigma", _FLOAT),
            ("lognormal_median", _FLOAT),
            ("lognormal_ks_statistic", _FLOAT),
            ("zipf_a", _FLOAT),
            ("zipf_ks_statistic", _FLOAT),
            ("better_fit", _STR),
            ("data_origin", _STR),
        ]
    ),
    REQUEST_RATE_SCALING: pa.schema(
        [
            ("file_number", _INT),
            ("model_name", _STR),
            ("log_type", _STR),
            ("speed_factor", _INT),
            ("requests", _INT),
            ("replay_seconds", _INT),
            ("mean_requests_per_s", _FLOAT),
            ("p50_requests_per_s", _INT),
            ("p99_requests_per_s", _INT),
            ("peak_requests_per_s", _INT),
            ("cv_requests_per_s", _FLOAT),
            ("index_of_dispersion", _FLOAT),
            ("idle_share", _FLOAT),
            ("data_origin", _STR),
        ]
    ),
}


class FactsMissingError(RuntimeError):
    """``marts.fct_request`` (or its dimensions) is not built yet."""


@dataclass(frozen=True)
class RequestGroup:
    """The requests of one model × log type (or of all), in arrival order (``second``, then ``offset_s``)."""

    model_name: str
    log_type: str
    second: np.ndarray  # whole trace seconds
    offset_s: np.ndarray  # position within the second, [0, 1)
    is_failed: np.ndarray
    is_real: np.ndarray
    file_number: np.ndarray
    request_tokens: np.ndarray
    response_tokens: np.ndarray

    def subset(self, mask: np.ndarray, model_name: str, log_type: str) -> RequestGroup:
        return RequestGroup(
            model_name,
            log_type,
            *(getattr(self, f)[mask] for f in _ARRAYS),
        )

    @property
    def arrival_s(self) -> np.ndarray:
        return self.second + self.offset_s


_ARRAYS = (
    "second",
    "offset_s",
    "is_failed",
    "is_real",
    "file_number",
    "request_tokens",
    "response_tokens",
)


@dataclass(frozen=True)
class FitSummary:
    """What a build wrote: rows per table, and the groups left out for too few requests."""

    rows: Mapping[str, int]
    skipped_windows: Mapping[str, int]  # window kind → windows with fewer than MIN_ARRIVALS requests
    skipped_token_groups: int
    skipped_scaling_groups: int
    origins: Mapping[str, Mapping[str, int]]  # table → data_origin → rows
    files: Mapping[str, Path]


# Reading ----------------------------------------------------------------------------------------------


def read_requests(settings: Settings) -> list[RequestGroup]:
    """Every request of ``marts.fct_request``, one group per model × log type, then the ``all`` group."""
    import duckdb

    from pipelines.warehouse.db import reader, writer_lock

    with writer_lock(settings, wait_message="fits: waiting for the warehouse writer before reading"):
        try:
            con = reader(settings)
        except FileNotFoundError as exc:
            raise FactsMissingError(
                f"{exc} (the fits read marts.fct_request: build the dbt models first)"
            ) from None
        try:
            pairs = con.execute(PAIRS_SQL).fetchall()
            arrays = con.execute(REQUESTS_SQL).fetchnumpy()
        except duckdb.CatalogException as exc:
            raise FactsMissingError(
                "the fits read marts.fct_request, marts.dim_model and marts.dim_log_type: build the dbt "
                f"models first ({str(exc).splitlines()[0]})"
            ) from None
        finally:
            con.close()
    every = RequestGroup(
        ALL,
        ALL,
        *(np.asarray(arrays[f], dtype=bool if f.startswith("is_") else None) for f in _ARRAYS),
    )
    pair = np.asarray(arrays["pair"])
    groups = [every.subset(pair == i, model, log) for i, (model, log) in enumerate(pairs)]
    return [*groups, every]


# Fitting ----------------------------------------------------------------------------------------------


def data_origin(real: np.ndarray, total: np.ndarray) -> list[str]:
    """``real`` / ``synthetic`` / ``mixed`` from real-row counts out of ``total`` (element-wise)."""
    return [
        "real" if r == t else "synthetic" if r == 0 else "mixed" for r, t in zip(real, total, strict=True)
    ]


def arrival_fit_rows(group: RequestGroup, window: str, min_arrivals: int = MIN_ARRIVALS) -> tuple[dict, int]:
    """The Gamma fits of ``group``'s windows of one kind with at least ``min_arrivals`` requests (columns of
    ``arrival_fits``), and how many windows had fewer."""
    width = WINDOWS[window]
    index = group.second // width
    if len(index) == 0:
        return _empty(ARRIVAL_FITS), 0
    run_start = np.flatnonzero(np.diff(index, prepend=index[0] - 1))
    n = np.diff(np.append(run_start, len(index)))
    kept = n >= max(min_arrivals, 3)  # two gaps at least
    skipped = int((~kept).sum())
    if not kept.any():
        return _empty(ARRIVAL_FITS), skipped
    gaps = np.diff(group.arrival_s)
    if (gaps < 0).any():
        raise ValueError("requests must be in arrival order (second, then offset within it)")
    run = np.repeat(np.arange(len(n)), n)
    gap_in_kept = (run[1:] == run[:-1]) & kept[run[:-1]]
    from pipelines.analysis.distributions import fit_gamma, segment_starts  # scipy: only when fitting

    starts = segment_starts(n[kept] - 1)
    fits = fit_gamma(gaps[gap_in_kept], starts)
    same = np.add.reduceat((np.diff(group.second) == 0)[gap_in_kept].astype(np.int64), starts)
    first = run_start[kept]
    real = np.add.reduceat(group.is_real.astype(np.int64), run_start)[kept]
    failed = np.add.reduceat(group.is_failed.astype(np.int64), run_start)[kept]
    count = n[kept]
    columns = {
        "model_name": [group.model_name] * len(count),
        "log_type": [group.log_type] * len(count),
        "window_kind": [window] * len(count),
        "window_index": index[first],
        "window_start_s": index[first] * width,
        "window_seconds": np.full(len(count), width),
        "requests": count,
        "failed_requests": failed,
        "interarrivals": fits.n,
        "mean_interarrival_s": fits.mean,
        "request_rate_per_s": fits.rate,
        "interarrival_cv": fits.cv,
        "gamma_shape": fits.shape,
        "gamma_scale_s": fits.scale,
        "gamma_shape_mle": fits.shape_mle,
        "ks_statistic": fits.ks_statistic,
        "ks_pvalue": fits.ks_pvalue,
        "same_second_share": same / fits.n,
        "data_origin": data_origin(real, count),
    }
    return columns, skipped


def token_fit_rows(group: RequestGroup, min_counts: int = MIN_TOKEN_COUNTS) -> tuple[list[dict], int]:
    """Lognormal and Zipf fits of the request and response tokens of ``group``'s not-failed requests with at
    least one token; how many sides had fewer than ``min_counts`` such requests."""
    from pipelines.analysis.distributions import fit_lognormal, fit_zipf  # scipy: only when fitting

    rows, skipped = [], 0
    for side in ("request", "response"):
        tokens = getattr(group, f"{side}_tokens")
        use = ~group.is_failed & (tokens >= 1)
        k = tokens[use]
        if len(k) < min_counts:
            skipped += 1
            continue
        lognormal, zipf = fit_lognormal(k), fit_zipf(k)
        real = int(group.is_real[use].sum())
        rows.append(
            {
                "model_name": group.model_name,
                "log_type": group.log_type,
                "tokens": side,
                "requests": len(k),
                "excluded_requests": int((~use).sum()),
                "min_tokens": int(k.min()),
                "median_tokens": float(np.median(k)),
                "mean_tokens": float(k.mean()),
                "max_tokens": int(k.max()),
                "lognormal_mu": lognormal.mu,
                "lognormal_sigma": lognormal.sigma,
                "lognormal_median": lognormal.median,
                "lognormal_ks_statistic": lognormal.ks_statistic,
                "zipf_a": zipf.a,
                "zipf_ks_statistic": zipf.ks_statistic,
                "better_fit": "lognormal" if lognormal.ks_statistic <= zipf.ks_statistic else "zipf",
                "data_origin": data_origin([real], [len(k)])[0],
            }
        )
    return rows, skipped


def scaling_rows(group: RequestGroup, min_arrivals: int = MIN_ARRIVALS) -> tuple[list[dict], int]:
    """Requests per replayed second of each BurstGPT file of ``group`` at every speed factor; how many files
    had fewer than ``min_arrivals`` requests of the group."""
    rows, skipped = [], 0
    for file_number in np.unique(group.file_number):
        in_file = group.file_number == file_number
        seconds = group.second[in_file]
        if len(seconds) < min_arrivals:
            skipped += 1
            continue
        origin = data_origin([int(group.is_real[in_file].sum())], [len(seconds)])[0]
        for factor in SPEED_FACTORS:
            r = replay_seconds(seconds, factor)
            rows.append(
                {
                    "file_number": int(file_number),
                    "model_name": group.model_name,
                    "log_type": group.log_type,
                    "speed_factor": r.speed_factor,
                    "requests": r.requests,
                    "replay_seconds": r.replay_seconds,
                    "mean_requests_per_s": r.mean,
                    "p50_requests_per_s": r.p50,
                    "p99_requests_per_s": r.p99,
                    "peak_requests_per_s": r.peak,
                    "cv_requests_per_s": r.cv,
                    "index_of_dispersion": r.index_of_dispersion,
                    "idle_share": r.idle_share,
                    "data_origin": origin,
                }
            )
    return rows, skipped


def _empty(table: str) -> dict:
    return {name: [] for name in SCHEMAS[table].names}


def _arrow(table: str, parts: list[dict]) -> pa.Table:
    """Column dicts (or row dicts) → one Arrow table of ``table``'s schema."""
    schema = SCHEMAS[table]
    pieces = [pa.Table.from_pydict(p, schema=schema) for p in parts if p]
    return pa.concat_tables(pieces) if pieces else schema.empty_table()


def _rows_to_columns(rows: list[dict], table: str) -> dict:
    return {name: [r[name] for r in rows] for name in SCHEMAS[table].names}


@dataclass(frozen=True)
class FitTables:
    tables: Mapping[str, pa.Table]
    skipped_windows: Mapping[str, int]
    skipped_token_groups: int
    skipped_scaling_groups: int


def fit_tables(groups: list[RequestGroup]) -> FitTables:
    """The three tables from the request groups, rows in a fixed order (so the same facts give the same
    rows)."""
    arrivals, skipped_windows = [], dict.fromkeys(WINDOWS, 0)
    tokens, scaling, skipped_tokens, skipped_scaling = [], [], 0, 0
    for group in groups:
        for window in WINDOWS:
            columns, skipped = arrival_fit_rows(group, window)
            arrivals.append(columns)
            skipped_windows[window] += skipped
        rows, skipped = token_fit_rows(group)
        tokens += rows
        skipped_tokens += skipped
        rows, skipped = scaling_rows(group)
        scaling += rows
        skipped_scaling += skipped
    tables = {
        ARRIVAL_FITS: _arrow(ARRIVAL_FITS, arrivals),
        TOKEN_LENGTH_FITS: _arrow(TOKEN_LENGTH_FITS, [_rows_to_columns(tokens, TOKEN_LENGTH_FITS)]),
        REQUEST_RATE_SCALING: _arrow(REQUEST_RATE_SCALING, [_rows_to_columns(scaling, REQUEST_RATE_SCALING)]),
    }
    return FitTables(tables, skipped_windows, skipped_tokens, skipped_scaling)


# Writing ----------------------------------------------------------------------------------------------


def fit_file(settings: Settings, table: str) -> Path:
    return settings.fits_dir / f"{table}.parquet"


def write_fit_tables(settings: Settings, tables: Mapping[str, pa.Table]) -> dict[str, Path]:
    """Each table to its Parquet file (atomic replace), then the ``analysis.<table>`` views over them."""
    from pipelines.warehouse.db import writer
    from pipelines.warehouse.views import refresh_file_views

    files = {}
    for name, table in tables.items():
        path = fit_file(settings, name)
        with replacing(path) as tmp:
            pq.write_table(table, tmp)
        files[name] = path
    with writer(settings) as con:
        refresh_file_views(con, SCHEMA, files)
    return files


def build_fits(settings: Settings, log: Callable[[str], None] = lambda _: None) -> FitSummary:
    """Read ``marts.fct_request``, fit, write ``analysis.arrival_fits``, ``analysis.token_length_fits`` and
    ``analysis.request_rate_scaling``."""
    groups = read_requests(settings)
    log(f"fitting {len(groups[-1].second):,} requests in {len(groups) - 1} model × log type groups and all")
    fitted = fit_tables(groups)
    files = write_fit_tables(settings, fitted.tables)
    origins = {
        name: dict(sorted(Counter(table.column("data_origin").to_pylist()).items()))
        for name, table in fitted.tables.items()
    }
    return FitSummary(
        rows={name: table.num_rows for name, table in fitted.tables.items()},
        skipped_windows=fitted.skipped_windows,
        skipped_token_groups=fitted.skipped_token_groups,
        skipped_scaling_groups=fitted.skipped_scaling_groups,
        origins=origins,
        files=files,
    )
